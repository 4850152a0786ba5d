// Package casbinpolicy decides reviews with a casbin model and policy of
// the user's own: any casbin model (ACL, ABAC, RBAC with domains, deny
// rules) over a review's attributes, which are handed to the model's
// request definition by field name (see fields.go).
package casbinpolicy
