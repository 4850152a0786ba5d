package admission

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// conformanceCase is one write, the admitters asked about it, and what any
// Admitter holding them must answer.
type conformanceCase struct {
	name      string
	admitters func() []Admitter
	attrs     Attributes

	// want is compared field by field, apart from Patch: the patch is
	// checked by the object it produces, wantObject (nil: unchanged).
	want       *Result
	wantObject []byte
	// firstSees is the object the first admitter listed sees; nil: the
	// case's object.
	firstSees []byte
	// wantErr is the local chain's error; the remote client reports any
	// failure of the handler as ErrUnavailable.
	wantErr error
}

func admitters(as ...Admitter) func() []Admitter {
	return func() []Admitter { return as }
}

func denied(code int32, reason metav1.StatusReason, message string) *metav1.Status {
	return &metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message}
}

var conformanceCases = []conformanceCase{
	{name: "allow",
		admitters: admitters(requireLabel("team")),
		attrs:     write(admissionv1.Create, pod("team=web"), nil),
		want:      &Result{Allowed: true}},
	{name: "deny with a message and code",
		admitters: admitters(requireLabel("team")),
		attrs:     write(admissionv1.Create, pod(), nil),
		want:      &Result{Status: denied(403, metav1.StatusReasonForbidden, `label "team" is required`)}},
	{name: "mutate: add a label",
		admitters: admitters(addLabel("team", "web")),
		attrs:     write(admissionv1.Create, pod("app=nginx"), nil),
		want:      &Result{Allowed: true}, wantObject: pod("app=nginx", "team=web")},
	{name: "mutate, then validate sees the patched object",
		// The validating admitter comes first: the chain still runs it last.
		admitters: admitters(requireLabel("team"), addLabel("team", "web")),
		attrs:     write(admissionv1.Create, pod(), nil),
		firstSees: pod("team=web"),
		want:      &Result{Allowed: true}, wantObject: pod("team=web")},
	{name: "second mutation sees the first",
		admitters: admitters(addLabel("team", "web"), copyLabel("team", "owner")),
		attrs:     write(admissionv1.Update, pod(), pod()),
		want:      &Result{Allowed: true}, wantObject: pod("team=web", "owner=web")},
	{name: "mutations in order",
		admitters: admitters(copyLabel("team", "owner"), addLabel("team", "web")),
		attrs:     write(admissionv1.Create, pod(), nil),
		want:      &Result{Status: denied(422, metav1.StatusReasonInvalid, "no label team to copy")}},
	{name: "validating admitter returns a patch",
		admitters: admitters(patchingValidator),
		attrs:     write(admissionv1.Create, pod(), nil),
		wantErr:   ErrValidatingPatch},
	{name: "warnings and audit annotations accumulate",
		admitters: admitters(warn("first", map[string]string{"a": "1"}), warn("second", map[string]string{"a": "2", "b": "2"}), requireLabel("team")),
		attrs:     write(admissionv1.Create, pod("team=web"), nil),
		want:      &Result{Allowed: true, Warnings: []string{"first", "second"}, AuditAnnotations: map[string]string{"a": "1", "b": "2"}}},
	{name: "warnings survive a denial",
		admitters: admitters(warn("careful", nil), requireLabel("team"), warn("never asked", nil)),
		attrs:     write(admissionv1.Create, pod(), nil),
		want: &Result{Warnings: []string{"careful"},
			Status: denied(403, metav1.StatusReasonForbidden, `label "team" is required`)}},
	{name: "DELETE with oldObject only: denied",
		admitters: admitters(addLabel("team", "web"), protectDeletes),
		attrs:     write(admissionv1.Delete, nil, pod("protected=true")),
		want:      &Result{Status: denied(403, metav1.StatusReasonForbidden, "protected objects cannot be deleted")}},
	{name: "DELETE with oldObject only: allowed",
		admitters: admitters(addLabel("team", "web"), protectDeletes),
		attrs:     write(admissionv1.Delete, nil, pod("team=web")),
		want:      &Result{Allowed: true}},
	{name: "admitter cannot decide",
		admitters: admitters(addLabel("team", "web"), broken),
		attrs:     write(admissionv1.Create, pod(), nil),
		wantErr:   errStoreDown},
}

// backend is one way of holding a case's admitters.
type backend struct {
	name     string
	admitter Admitter
	first    *recorder // the first admitter, to see what it was asked
}

// backends returns c's admitters chained in process, and the same chain
// served by NewAdmissionReviewHandler behind a WebhookClient.
func backends(t *testing.T, c conformanceCase) []backend {
	t.Helper()
	var out []backend
	for _, name := range []string{"local", "remote"} {
		as := c.admitters()
		first := record(as[0])
		as = append([]Admitter{first}, as[1:]...)
		var a Admitter = mustChain(t, as...)
		if name == "remote" {
			a = newRemote(t, a)
		}
		out = append(out, backend{name, a, first})
	}
	return out
}

func TestConformance(t *testing.T) {
	for _, c := range conformanceCases {
		for _, b := range backends(t, c) {
			t.Run(c.name+"/"+b.name, func(t *testing.T) {
				attrs := c.attrs
				got, err := b.admitter.Admit(context.Background(), &attrs)
				if !reflect.DeepEqual(attrs, c.attrs) {
					t.Error("Admit changed the caller's attributes")
				}
				checkSeen(t, b.first, c)
				checkAnswer(t, b.name, c, got, err)
			})
		}
	}
}

// checkAnswer checks one backend's answer to c.
func checkAnswer(t *testing.T, backend string, c conformanceCase, got *Result, err error) {
	t.Helper()
	if c.wantErr != nil {
		want := c.wantErr
		if backend == "remote" {
			want = ErrUnavailable
		}
		if !errors.Is(err, want) || got != nil {
			t.Fatalf("got %+v, %v; want no result and %v", got, err, want)
		}
		return
	}
	if err != nil {
		t.Fatalf("error %v", err)
	}
	if got.Allowed != c.want.Allowed || !reflect.DeepEqual(got.Status, c.want.Status) {
		t.Errorf("allowed %v status %+v, want %v %+v", got.Allowed, got.Status, c.want.Allowed, c.want.Status)
	}
	if !slices.Equal(got.Warnings, c.want.Warnings) || !maps.Equal(got.AuditAnnotations, c.want.AuditAnnotations) {
		t.Errorf("warnings %q annotations %v, want %q %v", got.Warnings, got.AuditAnnotations, c.want.Warnings, c.want.AuditAnnotations)
	}
	if !got.Allowed && got.Patch != nil {
		t.Errorf("denial with a patch %s", got.Patch)
	}
	if c.wantObject == nil {
		if got.Patch != nil {
			t.Errorf("unexpected patch %s", got.Patch)
		}
		return
	}
	obj, err := ApplyPatch(c.attrs.Object.Raw, got.Patch)
	if err != nil || !sameJSON(t, obj, c.wantObject) {
		t.Errorf("patched object %s (%v), want %s", obj, err, c.wantObject)
	}
}

// checkSeen checks the first admitter listed was asked once, about c's
// write, whole.
func checkSeen(t *testing.T, first *recorder, c conformanceCase) {
	t.Helper()
	want := c.attrs
	if c.firstSees != nil {
		want.Object.Raw = c.firstSees
	}
	seen := first.calls()
	if len(seen) != 1 {
		t.Fatalf("first admitter asked %d times", len(seen))
	}
	if c.firstSees != nil && sameJSON(t, seen[0].Object.Raw, c.firstSees) {
		seen[0].Object.Raw = c.firstSees
	}
	if !reflect.DeepEqual(seen[0], want) {
		t.Errorf("first admitter saw %+v, want %+v", seen[0], want)
	}
}
