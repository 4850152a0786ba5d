package admission

import (
	"bytes"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Attributes are what an admitter decides on: one write, who makes it, and
// the object before and after. The fields are those of
// admissionv1.AdmissionRequest, under the same names, so that a local admitter
// and a remote one see the same request; see the package documentation for
// why this is a type of its own. Admitters must treat Attributes as read-only:
// a mutating admitter changes the object by returning a patch.
type Attributes struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation admissionv1.Operation

	// Kind and Resource are the type and resource of the object as the
	// admitter receives it; SubResource names the subresource written, if
	// any (status, scale, …).
	Kind        metav1.GroupVersionKind
	Resource    metav1.GroupVersionResource
	SubResource string

	// RequestKind, RequestResource and RequestSubResource are what the
	// client asked for, which differs from the above when the request was
	// made through another version or an equivalent resource.
	RequestKind        metav1.GroupVersionKind
	RequestResource    metav1.GroupVersionResource
	RequestSubResource string

	// Name is empty on CREATE when the server generates it; Namespace is
	// empty for cluster-scoped resources.
	Name      string
	Namespace string

	// UserInfo is who makes the request, as authentication found it.
	UserInfo authenticationv1.UserInfo

	// Object is the new object as JSON in Raw: empty on DELETE. OldObject
	// is the stored object: set on UPDATE and DELETE, empty on CREATE. For
	// CONNECT, Object holds the connect options.
	Object    runtime.RawExtension
	OldObject runtime.RawExtension

	// DryRun means nothing will be stored: admitters with side effects must
	// not cause them.
	DryRun bool

	// Options are the operation's options (CreateOptions, UpdateOptions,
	// DeleteOptions) as JSON in Raw; empty if none.
	Options runtime.RawExtension
}

// validOperations are the operations an AdmissionReview can carry.
var validOperations = map[admissionv1.Operation]bool{
	admissionv1.Create:  true,
	admissionv1.Update:  true,
	admissionv1.Delete:  true,
	admissionv1.Connect: true,
}

// rawJSON returns ext as JSON: its Raw bytes, or its Object encoded when only
// that is set (a local caller holding a typed object), nil when empty or
// JSON null. The
// chain and the wire both work on JSON, so a local admitter sees what a
// remote one would.
func rawJSON(ext runtime.RawExtension) ([]byte, error) {
	if raw := bytes.TrimSpace(ext.Raw); len(raw) > 0 {
		if bytes.Equal(raw, []byte("null")) {
			return nil, nil
		}
		return raw, nil
	}
	if ext.Object == nil {
		return nil, nil
	}
	raw, err := json.Marshal(ext.Object)
	if err != nil {
		return nil, fmt.Errorf("admission: encoding object: %w", err)
	}
	return raw, nil
}
