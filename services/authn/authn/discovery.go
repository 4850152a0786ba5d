package authn

import (
	"net/http"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// groupVersion is the one version of the group we serve.
var groupVersion = metav1.GroupVersionForDiscovery{
	GroupVersion: authenticationv1.SchemeGroupVersion.String(),
	Version:      authenticationv1.SchemeGroupVersion.Version,
}

// apiGroup is authentication.k8s.io as discovery describes it.
func apiGroup() metav1.APIGroup {
	return metav1.APIGroup{
		TypeMeta:         metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:             authenticationv1.GroupName,
		Versions:         []metav1.GroupVersionForDiscovery{groupVersion},
		PreferredVersion: groupVersion,
	}
}

// groupListHandler serves GET /apis, which the aggregator merges with the
// other upstreams' into its own.
func groupListHandler(w http.ResponseWriter, _ *http.Request) {
	webhook.WriteJSON(w, http.StatusOK, metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   []metav1.APIGroup{apiGroup()},
	})
}

// aggregatedDoc is authentication.k8s.io in aggregated discovery, which
// the aggregator merges into its own /apis.
var aggregatedDoc = func() *apidiscovery.Document {
	v, err := apidiscovery.Version(groupVersion.Version, authenticationResources().APIResources)
	if err != nil {
		panic(err) // a fixed list, valid by construction
	}
	return apidiscovery.NewDocument([]apidiscoveryv2.APIGroupDiscovery{{
		ObjectMeta: metav1.ObjectMeta{Name: authenticationv1.GroupName}, Versions: []apidiscoveryv2.APIVersionDiscovery{v},
	}})
}()

// aggregatedGroups serves GET /apis in aggregated form.
func aggregatedGroups(*http.Request) (*apidiscovery.Document, error) { return aggregatedDoc, nil }

// groupHandler serves GET /apis/authentication.k8s.io.
func groupHandler(w http.ResponseWriter, _ *http.Request) {
	webhook.WriteJSON(w, http.StatusOK, apiGroup())
}

// resourceListHandler serves GET /apis/authentication.k8s.io/v1.
func resourceListHandler(w http.ResponseWriter, _ *http.Request) {
	webhook.WriteJSON(w, http.StatusOK, authenticationResources())
}

// authenticationResources are the two create-only resources kube-apiserver
// lists in authentication.k8s.io/v1.
func authenticationResources() *metav1.APIResourceList {
	create := metav1.Verbs{"create"}
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: groupVersion.GroupVersion,
		APIResources: []metav1.APIResource{
			{Name: "selfsubjectreviews", SingularName: "selfsubjectreview", Kind: "SelfSubjectReview", Verbs: create},
			{Name: "tokenreviews", SingularName: "tokenreview", Kind: "TokenReview", Verbs: create},
		},
	}
}
