package admission

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStatusError(t *testing.T) {
	cases := []struct {
		name string
		res  *Result
		want *metav1.Status // nil: no error
	}{
		{"allowed", Allow(), nil},
		{"nil", nil, nil},
		{"denied", Deny(403, "no"), &metav1.Status{Status: "Failure", Code: 403, Reason: "Forbidden", Message: "no"}},
		{"kept as given", &Result{Status: &metav1.Status{Code: 422, Reason: "Invalid", Message: "bad", Details: &metav1.StatusDetails{Name: "web"}}},
			&metav1.Status{Status: "Failure", Code: 422, Reason: "Invalid", Message: "bad", Details: &metav1.StatusDetails{Name: "web"}}},
		{"no status", &Result{}, &metav1.Status{Status: "Failure", Code: 400, Reason: "BadRequest", Message: "admission denied the request: BadRequest"}},
		{"code below 400", &Result{Status: &metav1.Status{Status: "Success", Code: 200}}, &metav1.Status{Status: "Failure", Code: 400, Reason: "BadRequest", Message: "admission denied the request: BadRequest"}},
		{"unknown code", &Result{Status: &metav1.Status{Code: 418}}, &metav1.Status{Status: "Failure", Code: 418, Message: "admission denied the request without explanation"}},
	}
	for _, c := range cases {
		err := c.res.StatusError()
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var se *apierrors.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("%s: %v is not a StatusError", c.name, err)
		}
		if got := se.ErrStatus; got.Status != c.want.Status || got.Code != c.want.Code || got.Reason != c.want.Reason ||
			got.Message != c.want.Message || (c.want.Details != nil && got.Details.Name != c.want.Details.Name) {
			t.Errorf("%s: %+v, want %+v", c.name, got, *c.want)
		}
	}
	// The denial's own status is not changed.
	res := &Result{Status: &metav1.Status{Code: 200}}
	_ = res.StatusError()
	if res.Status.Code != 200 {
		t.Error("StatusError changed the result")
	}
}
