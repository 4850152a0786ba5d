// Package kubeauthz lets kube-apiserver's own authorizers (k8s.io/apiserver's
// authorizer.Authorizer: the Node authorizer, ABAC, the structured
// configuration's webhooks) answer as kubesplit authorizers, by translating
// the attributes of a review into kube's and kube's answer back.
package kubeauthz
