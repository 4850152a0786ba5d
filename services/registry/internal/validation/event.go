package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Length limits of new-style events, from events.k8s.io.
const (
	eventReasonLimit   = 128
	eventActionLimit   = 128
	eventInstanceLimit = 128
	eventNoteLimit     = 1024
)

// ValidateEvent checks a core/v1 Event: what it is about, and that the
// namespaces agree. Events with eventTime are new-style and must also say
// who reported what. Kube lets core/v1 events be updated freely (recorders
// bump count and lastTimestamp), so there are no update rules.
func ValidateEvent(obj, old *unstructured.Unstructured) field.ErrorList {
	ev, _, errs := decodePair[corev1.Event](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateInvolvedObject(ev)
	if !ev.EventTime.IsZero() {
		errs = append(errs, validateNewStyleEvent(ev)...)
	}
	return errs
}

// validateInvolvedObject requires the object an event is about, and that it
// lives in the event's namespace (cluster-scoped objects' events go to
// default, or kube-system for new-style events).
func validateInvolvedObject(ev *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("involvedObject")
	ref := ev.InvolvedObject
	if ref.Kind == "" {
		errs = append(errs, field.Required(path.Child("kind"), ""))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	}
	nsPath := path.Child("namespace")
	switch {
	case ref.Namespace != "":
		errs = append(errs, dnsSubdomain(ref.Namespace, nsPath)...)
		if ref.Namespace != ev.Namespace {
			errs = append(errs, field.Invalid(nsPath, ref.Namespace, "does not match event.namespace"))
		}
	case ev.EventTime.IsZero() && ev.Namespace != metav1.NamespaceNone && ev.Namespace != metav1.NamespaceDefault:
		errs = append(errs, field.Invalid(nsPath, ref.Namespace, "does not match event.namespace"))
	case !ev.EventTime.IsZero() && ev.Namespace != metav1.NamespaceDefault && ev.Namespace != metav1.NamespaceSystem:
		errs = append(errs, field.Invalid(nsPath, ref.Namespace, "does not match event.namespace"))
	}
	return errs
}

// validateNewStyleEvent checks the fields an event with eventTime carries.
func validateNewStyleEvent(ev *corev1.Event) field.ErrorList {
	errs := requiredValid(ev.ReportingController, field.NewPath("reportingComponent"), qualifiedName)
	errs = append(errs, requiredWithin(ev.ReportingInstance, eventInstanceLimit, field.NewPath("reportingInstance"))...)
	errs = append(errs, requiredWithin(ev.Action, eventActionLimit, field.NewPath("action"))...)
	errs = append(errs, requiredWithin(ev.Reason, eventReasonLimit, field.NewPath("reason"))...)
	if len(ev.Message) > eventNoteLimit {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", eventNoteLimit)))
	}
	return errs
}

// requiredWithin requires a non-empty value of at most limit characters.
func requiredWithin(value string, limit int, path *field.Path) field.ErrorList {
	switch {
	case value == "":
		return field.ErrorList{field.Required(path, "")}
	case len(value) > limit:
		return field.ErrorList{field.Invalid(path, "", fmt.Sprintf("can have at most %v characters", limit))}
	}
	return nil
}
