package rules

// Tender is how an order's total is paid.
type Tender struct {
	Subtotal Money
	Discount Money
	Shipping Money // delivery, for the address's country
	Total    Money // subtotal less discount, plus shipping
	GiftCard Money // taken from the gift card
	Card     Money // the rest, charged to the card
}

// Goods is what the goods come to: the total less shipping.
func (t Tender) Goods() Money { return Money{t.Total.Amount - t.Shipping.Amount, t.Total.Currency} }

// SplitTender takes the discount off the subtotal (the goods only), adds
// shipping, then takes as much as the gift card holds, and leaves the rest
// for the card.
func SplitTender(subtotal, discount, shipping, giftBalance Money) Tender {
	discount.Amount = min(max(discount.Amount, 0), subtotal.Amount)
	ship := max(shipping.Amount, 0)
	total := subtotal.Amount - discount.Amount + ship
	gift := min(max(giftBalance.Amount, 0), total)
	c := subtotal.Currency
	return Tender{
		Subtotal: subtotal, Discount: Money{discount.Amount, c}, Shipping: Money{ship, c}, Total: Money{total, c},
		GiftCard: Money{gift, c}, Card: Money{total - gift, c},
	}
}
