package main

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"path/filepath"
)

// webhookCaller is the user of the client certificate a kube-apiserver
// presents to kubesplit's stages when it uses them as its webhooks.
const webhookCaller = "kube-apiserver-webhooks"

// The files writeWebhooks writes: what a kube-apiserver needs to use
// kubesplit's authn, authz and admission as its webhooks, and the RBAC
// that lets it, to apply to kubesplit.
const (
	webhookClientCA     = "webhook-client-ca.crt"
	authnWebhookConfig  = "webhook-authn.kubeconfig"
	authzWebhookConfig  = "webhook-authz.kubeconfig"
	admissionCredConfig = "webhook-admission.kubeconfig"
	authorizationConfig = "kube-authorization-config.yaml"
	admissionConfig     = "kube-admission-config.yaml"
	admissionWebhooks   = "kube-admission-webhooks.yaml"
	webhookCallerRBAC   = "webhook-caller-rbac.yaml"
)

func webhookFiles() []string {
	return []string{webhookClientCA, authnWebhookConfig, authzWebhookConfig, admissionCredConfig,
		authorizationConfig, admissionConfig, admissionWebhooks, webhookCallerRBAC}
}

// writeWebhooks writes a client CA of its own (the stages' --client-ca-file)
// and a certificate it signs for webhookCaller, carried inline by the
// webhook kubeconfigs so that they work wherever they are copied, and the
// kube-apiserver configuration naming them. The stages are reached at the
// URLs o gives, trusting ca.
func writeWebhooks(w *writer, ca *authority, o options) error {
	clientCA, err := newCA("kubesplit-webhook-client-ca")
	if err != nil {
		return err
	}
	cert, key, err := clientCA.issue(webhookCaller, nil, nil)
	if err != nil {
		return err
	}
	admission, err := url.Parse(o.admissionURL)
	if err != nil || admission.Host == "" {
		return fmt.Errorf("--admission-url %q: not an absolute URL", o.admissionURL)
	}
	abs, err := filepath.Abs(w.dir)
	if err != nil {
		return err
	}
	creds := webhookCreds{ca: b64(ca.certPEM), cert: b64(cert), key: b64(key)}
	w.file(webhookClientCA, clientCA.certPEM, 0o644)
	w.file(authnWebhookConfig, creds.kubeconfig(o.authnURL+"/apis/authentication.k8s.io/v1/tokenreviews"), 0o600)
	w.file(authzWebhookConfig, creds.kubeconfig(o.authzURL+"/apis/authorization.k8s.io/v1/subjectaccessreviews"), 0o600)
	w.file(admissionCredConfig, creds.admissionKubeconfig(admission.Host), 0o600)
	w.file(authorizationConfig, fmt.Appendf(nil, authorizationConfigYAML, filepath.Join(abs, authzWebhookConfig)), 0o600)
	credsPath := filepath.Join(abs, admissionCredConfig)
	w.file(admissionConfig, fmt.Appendf(nil, admissionConfigYAML, credsPath, credsPath), 0o600)
	w.file(admissionWebhooks, fmt.Appendf(nil, admissionWebhooksYAML, o.admissionURL, creds.ca, o.admissionURL, creds.ca), 0o600)
	w.file(webhookCallerRBAC, []byte(webhookCallerRBACYAML), 0o600)
	return w.err
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// webhookCreds are the stages' CA and the caller's certificate and key,
// base64 as kubeconfigs carry them inline.
type webhookCreds struct{ ca, cert, key string }

// kubeconfig is a webhook kubeconfig as kube-apiserver's
// --authentication-token-webhook-config-file and AuthorizationConfiguration
// read one: the server is the webhook's full URL.
func (c webhookCreds) kubeconfig(server string) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: kubesplit
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: kubesplit
  context: {cluster: kubesplit, user: %s}
current-context: kubesplit
`, server, c.ca, webhookCaller, c.cert, c.key, webhookCaller)
}

// admissionKubeconfig is the credentials file of kube's
// WebhookAdmissionConfiguration: users named by the host:port of the
// webhook they are shown to.
func (c webhookCreds) admissionKubeconfig(hostPort string) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
users:
- name: %q
  user:
    client-certificate-data: %s
    client-key-data: %s
`, hostPort, c.cert, c.key)
}

// authorizationConfigYAML is kube-apiserver's --authorization-config:
// Node and RBAC first, then kubesplit's authz. Its answers are not cached,
// so a RoleBinding's deletion in kubesplit revokes at once; a failing call
// is a refusal, never an allow.
const authorizationConfigYAML = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: Node, name: node}
- {type: RBAC, name: rbac}
- type: Webhook
  name: kubesplit
  webhook:
    timeout: 5s
    cacheAuthorizedRequests: false
    cacheUnauthorizedRequests: false
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: %s
`

// admissionConfigYAML is kube-apiserver's --admission-control-config-file:
// the credentials its webhook plugins present to kubesplit's admission.
const admissionConfigYAML = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %s
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %s
`

// admissionWebhooksYAML, applied to the kube-apiserver, sends every write
// to kubesplit's admission: its plugins (NamespaceLifecycle, LimitRanger,
// ResourceQuota, ServiceAccount, its policies and webhooks) decide on any
// resource. A write it cannot review fails (failurePolicy Fail).
const admissionWebhooksYAML = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: kubesplit
webhooks:
- name: mutating.admission.kubesplit.io
  clientConfig:
    url: %s/admission/v1/mutating
    caBundle: %s
  rules:
  - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], scope: "*"}
  matchPolicy: Equivalent
  reinvocationPolicy: IfNeeded
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 10
  admissionReviewVersions: ["v1"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: kubesplit
webhooks:
- name: validating.admission.kubesplit.io
  clientConfig:
    url: %s/admission/v1/validating
    caBundle: %s
  rules:
  - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], scope: "*"}
  matchPolicy: Equivalent
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 10
  admissionReviewVersions: ["v1"]
`

// webhookCallerRBACYAML, applied to kubesplit, lets the webhook caller
// call the three stages, as kube's system:auth-delegator role grants the
// first two.
const webhookCallerRBACYAML = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kubesplit:webhook-caller
rules:
- {apiGroups: [authentication.k8s.io], resources: [tokenreviews], verbs: [create]}
- {apiGroups: [authorization.k8s.io], resources: [subjectaccessreviews], verbs: [create]}
- {nonResourceURLs: ["/admission/v1/*"], verbs: [post]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubesplit:webhook-caller
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kubesplit:webhook-caller}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: ` + webhookCaller + `}
`
