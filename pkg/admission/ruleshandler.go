package admission

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// NewRulesHandler serves rules as JSON to GET (and HEAD), what a
// RuleSource reads; other methods get 405. Empty lists are sent as [],
// since a RuleSource refuses an answer missing either list.
func NewRulesHandler(rules Rules) http.Handler {
	if rules.Mutating == nil {
		rules.Mutating = []Rule{}
	}
	if rules.Validating == nil {
		rules.Validating = []Rule{}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{Group: "admission.kubesplit.io", Resource: "rules"}, r.Method))
			return
		}
		webhook.WriteJSON(w, http.StatusOK, rules)
	})
}
