package store

import "shop/store/rules"

// The VAT a record keeps; the rules of VAT are in package rules.

type vatRecord struct {
	Rate  int   `dynamodbav:"Rate"`
	Net   int64 `dynamodbav:"Net"`
	Tax   int64 `dynamodbav:"Tax"`
	Gross int64 `dynamodbav:"Gross"`
}

func vatRecords(lines []VATLine) []vatRecord {
	var out []vatRecord
	for _, l := range lines {
		out = append(out, vatRecord{Rate: int(l.Rate), Net: l.Net.Amount, Tax: l.Tax.Amount, Gross: l.Gross.Amount})
	}
	return out
}

func vatLines(recs []vatRecord, currency string) []VATLine {
	var out []VATLine
	for _, r := range recs {
		out = append(out, VATLine{Rate: rules.VATRate(r.Rate), Net: Money{Amount: r.Net, Currency: currency}, Tax: Money{Amount: r.Tax, Currency: currency}, Gross: Money{Amount: r.Gross, Currency: currency}})
	}
	return out
}

// VAT is the VAT in the line's total at its rate, before any discount.
func (i OrderItem) VAT() VATLine { return rules.LineVAT(i.VATRate, i.LineTotal()) }
