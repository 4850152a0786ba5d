package handler

import (
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/kubesplit/kubesplit/services/registry/internal/connect"
)

// admitConnect runs admission on a CONNECT request (exec, attach,
// portforward, the proxies) before it connects, as kube does: the review's
// object is the subresource's options as the query gives them, so a policy
// can refuse an exec by its command. A mutating stage's changes to the
// options are not carried into the connection; kube's built-in plugins do
// not change them either.
func (q *request) admitConnect() error {
	if !q.h.adm.on() {
		return nil
	}
	opts, err := connect.Options(q.r.URL.Query(), q.info)
	if err != nil || opts == nil {
		return err
	}
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(opts)
	if err != nil {
		return err
	}
	rv := &review{op: admissionv1.Connect, kind: gvks[0], name: q.info.Name, namespace: q.info.Namespace, newObj: opts}
	if _, err := q.mutate(rv); err != nil {
		return err
	}
	return q.validateAdmission(rv)
}
