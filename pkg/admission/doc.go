// Package admission is kubesplit's admission stage: whether a write may
// happen and how it is changed first. The registry calls it inside its write
// path, after decoding and validating an object and before the etcd
// transaction, because admission needs the old object and must finish before
// anything is stored.
//
// The stage is one interface, Admitter, with an AdmitterFunc adapter; Chain,
// which runs admitters in kube's two phases; and the two halves of the remote
// protocol, kube's admission.k8s.io/v1 AdmissionReview webhook:
// NewAdmissionReviewHandler serves any Admitter, and WebhookClient is one.
// The registry only ever holds an Admitter, so the same code runs with
// admission in process (fused) or behind the webhook (split).
//
// Two decisions shape the API:
//
//   - Attributes is a type of its own rather than admissionv1.AdmissionRequest.
//     It carries the same fields under the same names, but not the request
//     uid, which belongs to one webhook call (the client makes a fresh one
//     and checks the answer echoes it), and DryRun is a plain bool. Objects
//     travel as JSON in runtime.RawExtension.Raw, exactly as on the wire.
//
//   - The phase is a property of an admitter, not a parameter of Admit: kube
//     decides it by where a webhook is registered (mutating or validating
//     configuration), not per call. Mutating marks an admitter as one that
//     may patch; any other admitter is validating and must not return a
//     patch. Chain runs every mutating admitter first, in order, each seeing
//     the object as patched so far, then every validating one on the final
//     object, as kube-apiserver does.
//
// An admitter's three outcomes are kept apart: allowed (perhaps with a
// patch), denied (a Status for the client), and could not decide (an error).
// Every error means "no answer": callers fail closed (the registry answers 503
// and writes nothing), and nothing here turns an error into an allow.
package admission
