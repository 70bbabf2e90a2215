package payment

import "context"

// RetrieveRefund reads a refund of the test provider's (its refunds are
// made at once: succeeded).
func (p *TestProvider) RetrieveRefund(ctx context.Context, id string) (Refund, error) {
	r, err := p.ledger.TestPayRefund(ctx, id)
	if err != nil {
		return Refund{}, err
	}
	return refundOf(r), nil
}
