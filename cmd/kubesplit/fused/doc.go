// Package fused assembles kubesplit's five services in one process: the
// same Start functions as the split binaries, with each stage's local
// implementation handed to its caller instead of its remote client. The
// aggregator authenticates and authorizes with authn's and authz's
// in-process stages (no TokenReview or SubjectAccessReview round trip and
// no cache), and the registry admits writes with admission's in-process
// chains (no AdmissionReview round trip). The aggregator still proxies to
// the registry, authn and authz over loopback for the APIs they serve, so
// what the split costs is the stage calls and their caches, which is what
// `make bench` compares.
package fused
