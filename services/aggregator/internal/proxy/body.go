package proxy

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/identity"
)

// readBody holds r's body in memory when the proxy buffers bodies (see
// Config.BufferBody), on r, which must be the proxy's own copy of the
// client's request. When it cannot it has answered (413 past the limit,
// 400 for a body the client did not finish sending) and returns false;
// nothing was sent.
func (p *Proxy) readBody(w http.ResponseWriter, r *http.Request) bool {
	if p.bufferBody == 0 {
		return true
	}
	err := identity.BufferBody(r, p.bufferBody)
	var tooLarge *http.MaxBytesError // a limit set before the proxy's
	switch {
	case err == nil:
		return true
	case errors.Is(err, identity.ErrBodyTooLarge), errors.As(err, &tooLarge):
		apierror.Write(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", p.bufferBody)))
	default:
		apierror.Write(w, apierrors.NewBadRequest(err.Error()))
	}
	return false
}
