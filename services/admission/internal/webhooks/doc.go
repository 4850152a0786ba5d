// Package webhooks is kube-apiserver's MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook admission plugins: it calls the webhooks that
// MutatingWebhookConfiguration and ValidatingWebhookConfiguration objects
// (admissionregistration.k8s.io/v1) declare, about the requests their
// rules, selectors and match conditions select, with AdmissionReview v1.
//
// The configurations are read from informers, so a change applies to the
// next request without a restart; the plugins publish the union of the
// configured rules (plugin.DynamicRules) so that the registry asks the
// admission service about exactly the requests some webhook may want.
//
// As in kube, configurations run in the order of their names and webhooks
// in the order they are listed; mutating webhooks one after the other, each
// seeing the object as patched before it (and, with reinvocationPolicy
// IfNeeded, once more after later webhooks changed it); validating webhooks
// all at once. Requests about webhook configurations themselves are never
// sent to webhooks, so that a broken webhook cannot lock its own repair
// out.
package webhooks
