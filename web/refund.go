package web

import (
	"context"
	"errors"

	"shop/store"
	"shop/store/payment"
)

// refunder is the gateway's refunds as the store asks for them: the one
// place that knows how the gateway answers a refund.
func refunder(g payment.Gateway) store.Refunder {
	if r, ok := g.(store.Refunder); ok {
		return r
	}
	return noRefunds{}
}

// noRefunds answers for a gateway that cannot refund: a final no, so
// nothing stays reserved.
type noRefunds struct{}

func (noRefunds) Refund(context.Context, string, store.Money, string) (string, error) {
	return "", errors.Join(store.ErrRefundRefused, errors.New("this payment gateway makes no refunds"))
}
