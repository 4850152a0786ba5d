package handler

import "fmt"

// deployment is a minimal Deployment body with one container.
func deployment(name string, replicas int, image string) string {
	return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q},"spec":{"replicas":%d,`+
		`"selector":{"matchLabels":{"app":%q}},"template":{"metadata":{"labels":{"app":%q}},`+
		`"spec":{"containers":[{"name":"app","image":%q}]}}}}`, name, replicas, name, name, image)
}
