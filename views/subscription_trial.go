package views

import (
	"context"

	"shop/views/lang"
)

// TrialWords is a product's free trial in words: "14-day free trial".
func TrialWords(ctx context.Context, days int) string {
	return lang.T(ctx, "subs.trial.days", "Days", days)
}
