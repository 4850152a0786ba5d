package validation

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// printerColumnTypes are the types kubectl knows how to print.
var printerColumnTypes = []string{"boolean", "date", "integer", "number", "string"}

// validateCRDVersions checks the versions: uniquely named DNS labels,
// exactly one of them the storage version, each with a schema.
func validateCRDVersions(versions []apiextensionsv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	storage, unique := 0, true
	seen := map[string]bool{}
	for i := range versions {
		v, idx := &versions[i], p.Index(i)
		if v.Storage {
			storage++
		}
		unique = unique && !seen[v.Name]
		seen[v.Name] = true
		errs = append(errs, labelInvalid(v.Name, idx.Child("name"))...)
		errs = append(errs, validateCRDVersion(v, idx)...)
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(p, versionNames(versions), "must have exactly one version marked as storage version"))
	}
	if !unique {
		errs = append(errs, field.Invalid(p, versionNames(versions), "must contain unique version names"))
	}
	return errs
}

// versionNames lists version names for error values, which would
// otherwise print whole schemas.
func versionNames(versions []apiextensionsv1.CustomResourceDefinitionVersion) []string {
	names := make([]string, len(versions))
	for i, v := range versions {
		names[i] = v.Name
	}
	return names
}

// validateCRDVersion checks one version's schema, printer columns and
// scale subresource.
func validateCRDVersion(v *apiextensionsv1.CustomResourceDefinitionVersion, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	schemaPath := p.Child("schema", "openAPIV3Schema")
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		errs = append(errs, field.Required(schemaPath, "schemas are required"))
	} else {
		errs = append(errs, validateRootSchema(v.Schema.OpenAPIV3Schema, schemaPath)...)
	}
	for i, col := range v.AdditionalPrinterColumns {
		errs = append(errs, validatePrinterColumn(&col, p.Child("additionalPrinterColumns").Index(i))...)
	}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		errs = append(errs, validateScale(v.Subresources.Scale, p.Child("subresources", "scale"))...)
	}
	return errs
}

// validatePrinterColumn checks a column kubectl prints for the resource.
func validatePrinterColumn(col *apiextensionsv1.CustomResourceColumnDefinition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if col.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	errs = append(errs, oneOf(col.Type, p.Child("type"), printerColumnTypes...)...)
	if col.JSONPath == "" {
		errs = append(errs, field.Required(p.Child("jsonPath"), ""))
	}
	if col.Priority < 0 {
		errs = append(errs, field.Invalid(p.Child("priority"), col.Priority, "must be greater than or equal to 0"))
	}
	return errs
}

// validateScale checks the paths the scale subresource reads and writes.
func validateScale(s *apiextensionsv1.CustomResourceSubresourceScale, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, path := range []struct {
		field, value, under string
	}{{"specReplicasPath", s.SpecReplicasPath, ".spec."}, {"statusReplicasPath", s.StatusReplicasPath, ".status."}} {
		switch {
		case path.value == "":
			errs = append(errs, field.Required(p.Child(path.field), ""))
		case !strings.HasPrefix(path.value, path.under):
			errs = append(errs, field.Invalid(p.Child(path.field), path.value,
				"should be a json path under "+strings.TrimSuffix(path.under, ".")))
		}
	}
	return errs
}

// validateCRDConversion checks the conversion strategy, and that a webhook
// is configured exactly when the strategy calls one.
func validateCRDConversion(c *apiextensionsv1.CustomResourceConversion, p *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	errs := oneOf(c.Strategy, p.Child("strategy"), apiextensionsv1.NoneConverter, apiextensionsv1.WebhookConverter)
	webhookPath := p.Child("webhook")
	switch {
	case c.Strategy != apiextensionsv1.WebhookConverter && c.Webhook != nil:
		errs = append(errs, field.Forbidden(webhookPath, "should not be set when strategy is not set to Webhook"))
	case c.Strategy != apiextensionsv1.WebhookConverter:
	case c.Webhook == nil:
		errs = append(errs, field.Required(webhookPath, "required when strategy is set to Webhook"))
	case c.Webhook.ClientConfig == nil:
		errs = append(errs, field.Required(webhookPath.Child("clientConfig"), "required when strategy is set to Webhook"))
	default:
		cc := c.Webhook.ClientConfig
		errs = append(errs, validateClientConfig(cc.URL, conversionServiceRef(cc.Service), webhookPath.Child("clientConfig"))...)
		errs = append(errs, validateReviewVersions(c.Webhook.ConversionReviewVersions, webhookPath.Child("conversionReviewVersions"))...)
	}
	return errs
}

// conversionServiceRef adapts a conversion webhook's service reference.
func conversionServiceRef(s *apiextensionsv1.ServiceReference) *serviceRef {
	if s == nil {
		return nil
	}
	return &serviceRef{namespace: s.Namespace, name: s.Name, path: s.Path, port: s.Port}
}
