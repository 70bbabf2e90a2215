package store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A receipt's refund is a credit note in the books, as an order's is
// (credit_note.go): a number of the same gapless series ("CN2026-000008"),
// referring to the receipt's number. It is given in the very transaction
// that records the provider's confirmation (completeReceiptRefund), with
// the series' counter on condition of the last number read, so a refund is
// numbered once, when it is done, and no process can stop between the two.
// A top-up (cancel_refund_topup.go) keeps the earlier refund's note in
// CreditNotesBefore; the top-up takes a number of its own when done.

// ReceiptCreditNote is one credit note of a receipt's refund.
type ReceiptCreditNote struct {
	Number string
	At     time.Time
	Amount Money // what it gives back, positive
	Reason string
}

type receiptNoteRecord struct {
	Number string `dynamodbav:"Number"`
	At     string `dynamodbav:"At"`
	Amount int64  `dynamodbav:"Amount"`
	Reason string `dynamodbav:"Reason,omitempty"`
}

func (r receiptRecord) notesBefore() []ReceiptCreditNote {
	var out []ReceiptCreditNote
	for _, n := range r.CreditNotesBefore {
		out = append(out, ReceiptCreditNote{Number: n.Number, At: parseTime(n.At), Amount: Money{Amount: n.Amount, Currency: r.Currency}, Reason: n.Reason})
	}
	return out
}

// CreditNotes are the receipt's credit notes, oldest first: those of
// refunds a top-up followed, then its refund's once numbered.
func (r Receipt) CreditNotes() []ReceiptCreditNote {
	out := append([]ReceiptCreditNote(nil), r.CreditNotesBefore...)
	if rf := r.Refund; rf != nil && rf.Status == ReceiptRefunded && rf.CreditNote != "" {
		out = append(out, ReceiptCreditNote{Number: rf.CreditNote, At: rf.CreditNoteAt, Amount: rf.Amount, Reason: rf.Reason})
	}
	return out
}

// CreditNote is the receipt's credit note numbered number.
func (r Receipt) CreditNote(number string) (ReceiptCreditNote, bool) {
	for _, n := range r.CreditNotes() {
		if n.Number == number {
			return n, true
		}
	}
	return ReceiptCreditNote{}, false
}

// withCreditNote sets a refund's credit note on its completion's update.
func withCreditNote(upd expression.UpdateBuilder, n bookNumber, at time.Time) expression.UpdateBuilder {
	return upd.Set(expression.Name("RefundCreditNote"), expression.Value(n.String())).
		Set(expression.Name("RefundCreditNoteAt"), expression.Value(timestamp(at)))
}

// keepCreditNote moves a done refund's credit note, which a top-up
// replaces, to CreditNotesBefore.
func keepCreditNote(upd expression.UpdateBuilder, r Receipt) expression.UpdateBuilder {
	rf := r.Refund
	if rf == nil || rf.CreditNote == "" {
		return upd
	}
	note := receiptNoteRecord{Number: rf.CreditNote, At: timestamp(rf.CreditNoteAt), Amount: rf.Amount.Amount, Reason: rf.Reason}
	before := expression.Name("CreditNotesBefore")
	return upd.Set(before, expression.ListAppend(expression.IfNotExists(before, expression.Value([]receiptNoteRecord{})), expression.Value([]receiptNoteRecord{note}))).
		Remove(expression.Name("RefundCreditNote")).Remove(expression.Name("RefundCreditNoteAt"))
}

// creditNoteCounter is the counter's write of a receipt refund's credit
// note, last in its completion's transaction; at is its index there.
func (s *Store) creditNoteCounter(items []types.TransactWriteItem, n bookNumber) ([]types.TransactWriteItem, int, error) {
	counter, err := s.bookCounterWrite(n)
	if err != nil {
		return nil, 0, err
	}
	return append(items, counter), len(items), nil
}
