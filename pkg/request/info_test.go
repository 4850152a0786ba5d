package request

import (
	"net/http/httptest"
	"testing"
)

// A request's URL is parsed once: what AttachInfo parsed, InfoOf and a
// second AttachInfo hand back as it is.
func TestAttachInfoParsesOnce(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v1/namespaces/a/pods/p", nil)
	if InfoOf(r).Name != "p" {
		t.Fatalf("InfoOf without an attached info: %+v", InfoOf(r))
	}
	if _, ok := InfoFrom(r.Context()); ok {
		t.Error("a request nothing attached info to has some")
	}
	info, attached := AttachInfo(r)
	if got, ok := InfoFrom(attached.Context()); !ok || got != info {
		t.Errorf("InfoFrom after AttachInfo = %p, %v, want %p", got, ok, info)
	}
	if InfoOf(attached) != info {
		t.Error("InfoOf parsed again what AttachInfo attached")
	}
	again, same := AttachInfo(attached)
	if again != info || same != attached {
		t.Error("a second AttachInfo parsed again")
	}
}
