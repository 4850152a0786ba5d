module github.com/kubesplit/kubesplit/test/e2e

go 1.26.0

require github.com/kubesplit/kubesplit/pkg v0.0.0

replace github.com/kubesplit/kubesplit/pkg => ../../pkg
