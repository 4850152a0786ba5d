package apidiscovery

import "k8s.io/apimachinery/pkg/runtime/schema"

// Priority orders discovery as an APIService's groupPriorityMinimum and
// versionPriority do: groups by their highest Group, a group's versions
// by Version, both highest first.
type Priority struct {
	Group, Version int32
}

// CustomResourcePriority is what kube gives every group version a
// CustomResourceDefinition serves (its crdregistration controller's local
// APIServices): below every built-in group.
var CustomResourcePriority = Priority{Group: 1000, Version: 100}

// BuiltinPriority is the priority kube-apiserver v1.37 registers for a
// built-in group version (the local APIServices of its autoregistration),
// or false for a group version it has none for.
func BuiltinPriority(gv schema.GroupVersion) (Priority, bool) {
	p, ok := builtinPriorities[gv]
	return p, ok
}

// builtinPriorities is kube-apiserver v1.37's apiVersionPriorities
// (cmd/kube-apiserver/app/aggregator.go over
// pkg/controlplane/apiserver.DefaultGenericAPIServicePriorities), and
// apiregistration.k8s.io's, which kube's aggregator puts first
// (APIRegistrationGroupPriority): kube keeps them as data, not derived
// from the groups, so they are data here too.
var builtinPriorities = map[schema.GroupVersion]Priority{
	{Group: "apiregistration.k8s.io", Version: "v1"}:             {20001, 0},
	{Group: "", Version: "v1"}:                                   {18000, 1},
	{Group: "apps", Version: "v1"}:                               {17800, 15},
	{Group: "events.k8s.io", Version: "v1"}:                      {17750, 15},
	{Group: "events.k8s.io", Version: "v1beta1"}:                 {17750, 5},
	{Group: "authentication.k8s.io", Version: "v1"}:              {17700, 15},
	{Group: "authentication.k8s.io", Version: "v1beta1"}:         {17700, 9},
	{Group: "authentication.k8s.io", Version: "v1alpha1"}:        {17700, 1},
	{Group: "authorization.k8s.io", Version: "v1"}:               {17600, 15},
	{Group: "autoscaling", Version: "v1"}:                        {17500, 15},
	{Group: "autoscaling", Version: "v2"}:                        {17500, 30},
	{Group: "autoscaling", Version: "v2beta1"}:                   {17500, 9},
	{Group: "autoscaling", Version: "v2beta2"}:                   {17500, 1},
	{Group: "batch", Version: "v1"}:                              {17400, 15},
	{Group: "batch", Version: "v1beta1"}:                         {17400, 9},
	{Group: "batch", Version: "v2alpha1"}:                        {17400, 9},
	{Group: "certificates.k8s.io", Version: "v1"}:                {17300, 15},
	{Group: "certificates.k8s.io", Version: "v1beta1"}:           {17300, 9},
	{Group: "certificates.k8s.io", Version: "v1alpha1"}:          {17300, 1},
	{Group: "networking.k8s.io", Version: "v1"}:                  {17200, 15},
	{Group: "networking.k8s.io", Version: "v1beta1"}:             {17200, 9},
	{Group: "policy", Version: "v1"}:                             {17100, 15},
	{Group: "policy", Version: "v1beta1"}:                        {17100, 9},
	{Group: "rbac.authorization.k8s.io", Version: "v1"}:          {17000, 15},
	{Group: "storage.k8s.io", Version: "v1"}:                     {16800, 15},
	{Group: "storage.k8s.io", Version: "v1beta1"}:                {16800, 9},
	{Group: "storage.k8s.io", Version: "v1alpha1"}:               {16800, 1},
	{Group: "apiextensions.k8s.io", Version: "v1"}:               {16700, 15},
	{Group: "admissionregistration.k8s.io", Version: "v1"}:       {16700, 15},
	{Group: "admissionregistration.k8s.io", Version: "v1beta1"}:  {16700, 12},
	{Group: "admissionregistration.k8s.io", Version: "v1alpha1"}: {16700, 9},
	{Group: "scheduling.k8s.io", Version: "v1"}:                  {16600, 15},
	{Group: "scheduling.k8s.io", Version: "v1beta1"}:             {16600, 9},
	{Group: "scheduling.k8s.io", Version: "v1alpha3"}:            {16600, 3},
	{Group: "coordination.k8s.io", Version: "v1"}:                {16500, 15},
	{Group: "coordination.k8s.io", Version: "v1beta1"}:           {16500, 13},
	{Group: "coordination.k8s.io", Version: "v1alpha2"}:          {16500, 12},
	{Group: "node.k8s.io", Version: "v1"}:                        {16300, 15},
	{Group: "node.k8s.io", Version: "v1alpha1"}:                  {16300, 1},
	{Group: "node.k8s.io", Version: "v1beta1"}:                   {16300, 9},
	{Group: "discovery.k8s.io", Version: "v1"}:                   {16200, 15},
	{Group: "discovery.k8s.io", Version: "v1beta1"}:              {16200, 12},
	{Group: "resource.k8s.io", Version: "v1"}:                    {16200, 21},
	{Group: "resource.k8s.io", Version: "v1beta2"}:               {16200, 15},
	{Group: "resource.k8s.io", Version: "v1beta1"}:               {16200, 9},
	{Group: "resource.k8s.io", Version: "v1alpha3"}:              {16200, 1},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}:       {16100, 21},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3"}:  {16100, 18},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta2"}:  {16100, 15},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta1"}:  {16100, 12},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1alpha1"}: {16100, 9},
	{Group: "internal.apiserver.k8s.io", Version: "v1alpha1"}:    {16000, 9},
	{Group: "storagemigration.k8s.io", Version: "v1"}:            {15800, 15},
	{Group: "storagemigration.k8s.io", Version: "v1beta1"}:       {15800, 9},
	{Group: "lifecycle.k8s.io", Version: "v1alpha1"}:             {15700, 1},
}
