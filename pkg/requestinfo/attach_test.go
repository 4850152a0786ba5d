package requestinfo

import (
	"net/http/httptest"
	"testing"
)

// A request's URL is parsed once: what Attach parsed, Of and a second
// Attach hand back as it is.
func TestAttachParsesOnce(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v1/namespaces/a/pods/p", nil)
	if Of(r).Name != "p" {
		t.Fatalf("Of without an attached info: %+v", Of(r))
	}
	info, attached := Attach(r)
	if Of(attached) != info {
		t.Error("Of parsed again what Attach attached")
	}
	again, same := Attach(attached)
	if again != info || same != attached {
		t.Error("a second Attach parsed again")
	}
}
