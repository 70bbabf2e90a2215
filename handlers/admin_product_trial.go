package handlers

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
)

// trialDaysFromForm reads the product form's free trial (whole days, 0-90;
// blank is none), with a message at the field when it is not one. Checked
// whether or not the product is subscribable, as typed: a bad number is
// never saved quietly.
func trialDaysFromForm(c *fiber.Ctx, f *views.AdminProductForm) int {
	if f.TrialDays == "" {
		return 0
	}
	n, err := strconv.Atoi(f.TrialDays)
	if err != nil || !rules.ValidTrialDays(n) {
		f.Errors["trial_days"] = page.T(c, "admin.products.err.trial", "Max", rules.MaxTrialDays)
		return 0
	}
	return n
}

// trialDaysField is a product's trial as the form shows it: blank for none.
func trialDaysField(p store.Product) string {
	if p.TrialDays <= 0 {
		return ""
	}
	return strconv.Itoa(p.TrialDays)
}
