package authz

import (
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// Discovery paths of the group authz serves. The aggregator merges /apis
// from every upstream and forwards the group's own documents here, so
// kubectl api-resources lists the reviews, and kubectl auth can-i finds
// them.
const (
	groupListPath    = "/apis"
	groupPath        = "/apis/authorization.k8s.io"
	groupVersionPath = "/apis/authorization.k8s.io/v1"
)

// authorizationGroup is the one group authz serves, at its one version.
func authorizationGroup() metav1.APIGroup {
	v := metav1.GroupVersionForDiscovery{
		GroupVersion: authorizationv1.SchemeGroupVersion.String(),
		Version:      authorizationv1.SchemeGroupVersion.Version,
	}
	return metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     authorizationv1.GroupName, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v,
	}
}

// authorizationResources lists the reviews authz serves, as kube lists
// them: create-only, neither namespaced but the local review.
func authorizationResources() *metav1.APIResourceList {
	review := func(name, kind string) metav1.APIResource {
		return metav1.APIResource{Name: name, SingularName: strings.ToLower(kind), Kind: kind, Verbs: metav1.Verbs{"create"}}
	}
	local := review("localsubjectaccessreviews", "LocalSubjectAccessReview")
	local.Namespaced = true
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: authorizationv1.SchemeGroupVersion.String(),
		APIResources: []metav1.APIResource{
			local,
			review("selfsubjectaccessreviews", "SelfSubjectAccessReview"),
			review("selfsubjectrulesreviews", "SelfSubjectRulesReview"),
			review("subjectaccessreviews", "SubjectAccessReview"),
		},
	}
}

// handleDiscovery mounts the group's discovery documents on mux, behind
// wrap (the identity check the aggregator's hops pass).
func handleDiscovery(mux *http.ServeMux, wrap func(http.Handler) http.Handler) {
	serve := func(path string, v any) {
		mux.Handle("GET "+path, wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			webhook.WriteJSON(w, http.StatusOK, v)
		})))
	}
	group := authorizationGroup()
	legacy := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		webhook.WriteJSON(w, http.StatusOK, &metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{group},
		})
	})
	doc := aggregatedDocument()
	mux.Handle("GET "+groupListPath, wrap(apidiscovery.Serve(legacy, func(*http.Request) (*apidiscovery.Document, error) {
		return doc, nil
	})))
	serve(groupPath, &group)
	serve(groupVersionPath, authorizationResources())
}

// aggregatedDocument is authorization.k8s.io in aggregated discovery,
// which the aggregator merges into its own /apis.
func aggregatedDocument() *apidiscovery.Document {
	v, err := apidiscovery.Version(authorizationv1.SchemeGroupVersion.Version, authorizationResources().APIResources)
	if err != nil {
		panic(err) // a fixed list, valid by construction
	}
	return apidiscovery.NewDocument([]apidiscoveryv2.APIGroupDiscovery{{
		ObjectMeta: metav1.ObjectMeta{Name: authorizationv1.GroupName}, Versions: []apidiscoveryv2.APIVersionDiscovery{v},
	}})
}
