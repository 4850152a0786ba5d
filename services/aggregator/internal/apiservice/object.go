package apiservice

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GVR is the resource the controller watches.
var GVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// URLAnnotation, on an APIService with a service, gives the backend's
// base URL (https://host[:port]) instead of the service's cluster DNS
// name, for deploys outside a cluster. Kubernetes has no field for it.
const URLAnnotation = "kubesplit.io/url"

// The fields of an apiregistration.k8s.io/v1 APIService the aggregator
// reads, decoded from the registry's JSON (the Go types live in
// k8s.io/kube-aggregator, which kubesplit does not import).
type apiService struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              apiServiceSpec   `json:"spec"`
	Status            apiServiceStatus `json:"status"`
}

type apiServiceSpec struct {
	Service               *serviceReference `json:"service,omitempty"`
	Group                 string            `json:"group,omitempty"`
	Version               string            `json:"version,omitempty"`
	InsecureSkipTLSVerify bool              `json:"insecureSkipTLSVerify,omitempty"`
	CABundle              []byte            `json:"caBundle,omitempty"`
	GroupPriorityMinimum  int32             `json:"groupPriorityMinimum"`
	VersionPriority       int32             `json:"versionPriority"`
}

type serviceReference struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Port      *int32 `json:"port,omitempty"`
}

type apiServiceStatus struct {
	Conditions []condition `json:"conditions,omitempty"`
}

// condition is an APIServiceCondition.
type condition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
}

// conditionAvailable is the one condition kube's aggregator maintains.
const conditionAvailable = "Available"

// decode reads an APIService from the informer's object.
func decode(u *unstructured.Unstructured) (*apiService, error) {
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var s apiService
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("APIService %q: %w", u.GetName(), err)
	}
	return &s, nil
}

// available returns the Available condition, or nil.
func (s *apiService) available() *condition {
	for i, c := range s.Status.Conditions {
		if c.Type == conditionAvailable {
			return &s.Status.Conditions[i]
		}
	}
	return nil
}

// withAvailable returns a copy of u whose Available condition is c, the
// other conditions kept.
func withAvailable(u *unstructured.Unstructured, s *apiService, c condition) (*unstructured.Unstructured, error) {
	conds := []condition{c}
	for _, o := range s.Status.Conditions {
		if o.Type != conditionAvailable {
			conds = append(conds, o)
		}
	}
	raw, err := json.Marshal(conds)
	if err != nil {
		return nil, err
	}
	var list []any
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	out := u.DeepCopy()
	if err := unstructured.SetNestedSlice(out.Object, list, "status", "conditions"); err != nil {
		return nil, err
	}
	return out, nil
}
