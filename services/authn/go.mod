module github.com/kubesplit/kubesplit/services/authn

go 1.26.0
