// Package revision is the push-invalidation protocol between a stage that
// answers cacheable questions (authn, authz) and the aggregator that caches
// the answers: the stage keeps a Feed of a value that only moves forward,
// serves it at Path with Handler, and the aggregator reads the Lines and
// drops its cache whenever the value changes.
package revision
