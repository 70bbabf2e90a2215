package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// A refund of an order is a credit note in the books: a document of its
// own with a number of its own gapless series ("CN2026-000001", books.go),
// referring to the order's invoice, as EU invoicing rules ask, rather than
// a negative line on the invoice. It is numbered when the refund is done:
// at once when nothing goes back to a card, when the provider confirms the
// card's part else (finishRefund, the provider's event, the retry job), so
// a refund whose card part failed for good never takes a number.
//
// The number is given after the refund is marked done, in a transaction
// of the series' counter and the refund (on condition it is done and has
// no number), so a refund is numbered once and a number is never lost.
// A process stopped between the two leaves a done refund without its
// number until the next call of numberCreditNote for it: the same key sent
// again, its event again, or the card refunds job, which numbers every
// refund left on the list of credit notes due (NumberDueCreditNotes): the
// write that marks a refund done puts it there, the one that numbers it
// takes it off.

var errCreditNoteGiven = errors.New("credit note numbered meanwhile")

// numberCreditNote gives a done refund of an order with an invoice its
// credit note's number, if it has none yet: one transaction of the series'
// counter and the refund (the counter read first when this process does
// not know its last number). A refund not done, numbered already, or of an
// order without an invoice (a late payment's refund) is returned as it is.
func (s *Store) numberCreditNote(ctx context.Context, orderID string, rf Refund) (Refund, error) {
	if rf.Status != RefundDone || rf.CreditNote != "" || !takesCreditNote(rf) {
		return rf, nil
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	err := s.numbered(ctx, bookCreditNotes, orderID, now, 1, func(n bookNumber) error {
		counter, err := s.bookCounterWrite(n)
		if err != nil {
			return err
		}
		cond := expression.Name("Status").Equal(expression.Value(string(RefundDone))).
			And(expression.AttributeNotExists(expression.Name("CreditNote")))
		upd := expression.Set(expression.Name("CreditNote"), expression.Value(n.String())).
			Set(expression.Name("CreditNoteAt"), expression.Value(timestamp(now))).
			Remove(expression.Name(attrAttnPK)).Remove(expression.Name(attrAttnSK)) // off the list of notes due
		w, err := s.txUpdate(orderKey(orderID), refundKey(rf.ID), upd, cond)
		if err != nil {
			return err
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{w, counter}})
		reasons := cancellationReasons(err)
		switch {
		case err == nil:
			rf.CreditNote, rf.CreditNoteAt = n.String(), now
			return nil
		case len(reasons) > 0 && reasons[0] == reasonConditionFailed:
			return errCreditNoteGiven
		case bookNumberTaken(err, 1):
			return errBookNumberTaken
		}
		return fmt.Errorf("credit note of refund %s of order %s: %w", rf.ID, orderID, err)
	})
	if errors.Is(err, errCreditNoteGiven) {
		return s.OrderRefund(ctx, orderID, rf.ID) // another took its number first: as it is
	}
	if err != nil {
		return rf, err
	}
	return rf, nil
}

// CreditVAT is what a refund gives back per VAT rate: its lines at their
// items' rates, and the rest (an amount, delivery) shared among the
// invoice's rates in proportion to what each was paid.
func (d OrderDetails) CreditVAT(rf Refund, inv Invoice) []VATLine {
	rates := map[string]rules.VATRate{}
	for _, it := range d.Items {
		rates[it.ProductID+"\x00"+it.DropID] = it.VATRate
	}
	var taxed []rules.Taxed
	rest := rf.Amount.Amount
	for _, l := range rf.Lines {
		taxed = append(taxed, rules.Taxed{Rate: rates[l.ProductID+"\x00"+l.DropID], Gross: l.Amount})
		rest -= l.Amount.Amount
	}
	var paid int64
	for _, v := range inv.VAT {
		paid += v.Gross.Amount
	}
	if rest > 0 && paid > 0 {
		var share []rules.Taxed
		for _, v := range inv.VAT {
			share = append(share, rules.Taxed{Rate: v.Rate, Gross: v.Gross})
		}
		// The invoice's rates with all but rest taken off: rest, shared by
		// what each rate was paid.
		for _, v := range rules.VATBreakdown(share, Money{Amount: paid - rest, Currency: rf.Amount.Currency}) {
			taxed = append(taxed, rules.Taxed{Rate: v.Rate, Gross: v.Gross})
		}
	}
	if len(taxed) == 0 {
		return nil
	}
	return rules.VATBreakdown(taxed, Money{Currency: rf.Amount.Currency})
}

// takesCreditNote says whether a refund is numbered as a credit note: all
// but a late payment's refund (its order has no invoice to correct).
func takesCreditNote(rf Refund) bool { return !strings.HasPrefix(rf.ID, prefixLateRefund) }

// creditNoteDueKeys are the Attention keys of a done refund not numbered
// yet: one partition (a refund stays on it for one transaction's round
// trip, unless its process stopped), oldest first.
func creditNoteDueKeys(at time.Time, orderID, key string) (string, string) {
	return creditNotesDueList, createdKey(at, orderRefundListID(orderID, key))
}

// creditNoteGrace is how long a done refund belongs to the request that
// marked it done before the job numbers it instead (either may: the
// number is given once).
const creditNoteGrace = 2 * time.Minute

// NumberDueCreditNotes numbers the credit notes of order refunds done for
// longer than the grace and still without one (their process stopped
// between marking them done and numbering them): one Query of the
// Attention index's credit-notes-due partition, then numberCreditNote for
// each. It returns how many it numbered.
func (s *Store) NumberDueCreditNotes(ctx context.Context) (int, error) {
	before := createdKey(s.now().UTC().Add(-creditNoteGrace), "")
	items, err := s.query(ctx, querySpec{key: onAttention.pkAndSKBelow(creditNotesDueList, before)})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, item := range items {
		var r refundRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return n, err
		}
		rf := r.refund()
		done, err := s.numberCreditNote(ctx, rf.OrderID, rf)
		if err != nil {
			return n, fmt.Errorf("credit note of refund %s of order %s: %w", rf.ID, rf.OrderID, err)
		}
		if rf.CreditNote == "" && done.CreditNote != "" {
			n++
		}
	}
	return n, nil
}
