package stripepay

import (
	"context"

	"shop/store/payment"
)

var _ payment.RefundReader = (*Provider)(nil)

// RetrieveRefund reads a refund where it stands (a refund answered
// pending is read again rather than made again: Stripe's replay of its
// key would answer pending for ever, and keeps the key a day only).
func (p *Provider) RetrieveRefund(ctx context.Context, id string) (payment.Refund, error) {
	r, err := p.sc.V1Refunds.Retrieve(ctx, id, nil)
	if err != nil {
		return payment.Refund{}, mapError(err)
	}
	return refundOf(r), nil
}
