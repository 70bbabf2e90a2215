package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AccountPrivacyStore is what the customer's data export and the account's
// deletion read and change.
type AccountPrivacyStore interface {
	Now() time.Time
	Customer(ctx context.Context, id string) (store.Customer, error)
	CustomerData(ctx context.Context, customerID string) (store.CustomerData, error)
	CredentialsByEmail(ctx context.Context, email string) (store.Credentials, error)
	CountAttempt(ctx context.Context, scope, subject string, window time.Duration) (int, error)
	DeleteCustomer(ctx context.Context, customerID string) error
}

// AccountPrivacy serves /account/data (everything the shop holds about the
// customer, as JSON) and /account/delete.
type AccountPrivacy struct {
	Store AccountPrivacyStore
}

// Download is the customer's data as a JSON file.
func (h *AccountPrivacy) Download(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.AccountData)
	if err != nil || !v.SignedIn() {
		return err
	}
	d, err := h.Store.CustomerData(c.UserContext(), v.ID)
	if err != nil {
		return err
	}
	body, err := json.MarshalIndent(exportOf(d, page.SessionID(c), h.Store.Now()), "", "  ")
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="fika-and-field-data-%s.json"`, h.Store.Now().UTC().Format("2006-01-02")))
	return c.Status(fiber.StatusOK).Send(append(body, '\n'))
}

// DeleteForm asks for the password before the account is deleted, and
// says what goes and what stays.
func (h *AccountPrivacy) DeleteForm(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.AccountDelete)
	if err != nil || !v.SignedIn() {
		return err
	}
	return h.renderDelete(c, fiber.StatusOK, views.DeleteAccountForm{Errors: views.FieldErrors{}})
}

func (h *AccountPrivacy) renderDelete(c *fiber.Ctx, status int, f views.DeleteAccountForm) error {
	f.CSRF = page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "account.delete.title"), Page: page.Full(views.DeleteAccountView, f)})
}

// Delete deletes the account once the password is right (so many tries
// per window, like a password change), signs this browser out and says so.
func (h *AccountPrivacy) Delete(c *fiber.Ctx) error {
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	f := views.DeleteAccountForm{Errors: views.FieldErrors{}}
	password := page.Field(c, "password")
	switch {
	case password == "":
		f.Errors["password"] = page.T(c, "account.delete.enter_password")
		return h.renderDelete(c, fiber.StatusUnprocessableEntity, f)
	case len(password) > 1024:
		f.Errors["password"] = page.T(c, "auth.password.too_long")
		return h.renderDelete(c, fiber.StatusUnprocessableEntity, f)
	}
	n, err := h.Store.CountAttempt(ctx, "password-change", v.ID, passwordChangeWindow)
	if err != nil {
		return err
	}
	if n > passwordChangeAttempts {
		f.Errors[""] = page.T(c, "account.password.too_many")
		return h.renderDelete(c, fiber.StatusTooManyRequests, f)
	}
	cust, err := h.Store.Customer(ctx, v.ID)
	if err != nil {
		return err
	}
	cred, err := h.Store.CredentialsByEmail(ctx, cust.Email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err != nil || cred.CustomerID != v.ID || bcrypt.CompareHashAndPassword([]byte(cred.PasswordHash), []byte(password)) != nil {
		f.Errors["password"] = page.T(c, "account.delete.wrong_password")
		return h.renderDelete(c, fiber.StatusUnprocessableEntity, f)
	}
	err = h.Store.DeleteCustomer(ctx, v.ID)
	var toShip *store.OrderToShipError
	switch {
	case errors.As(err, &toShip):
		f.Errors[""] = page.T(c, "account.delete.order_to_ship", "Number", toShip.Number)
		return h.renderDelete(c, fiber.StatusConflict, f)
	case errors.Is(err, store.ErrStaffAccount):
		f.Errors[""] = page.T(c, "account.delete.staff")
		return h.renderDelete(c, fiber.StatusConflict, f)
	case err != nil:
		return err
	}
	page.SignOut(c)
	page.Flash(c, views.FlashSuccess, page.T(c, "account.delete.done"))
	return page.Redirect(c, paths.Home)
}

// The export: what the shop holds, in the shop's words. Sessions leave
// out their ids and data (the id is what the cookie carries), the
// subscriptions their card token, shipments the staff who moved them.
type (
	exportDoc struct {
		Shop            string               `json:"shop"`
		ExportedAt      time.Time            `json:"exportedAt"`
		Account         exportAccount        `json:"account"`
		SignIns         exportSignIns        `json:"signIns"`
		Addresses       []exportAddress      `json:"addresses"`
		Cart            []exportCartLine     `json:"cart"`
		Orders          []exportOrder        `json:"orders"`
		Subscriptions   []exportSub          `json:"subscriptions"`
		Receipts        []exportReceipt      `json:"receipts"`
		DropTickets     []exportTicket       `json:"dropTickets"`
		Sessions        []exportSession      `json:"sessions"`
		Mails           []exportMail         `json:"mails"`
		AccountChanges  []exportRoleChange   `json:"accountChanges"`
		WebhookEvents   []exportWebhookEvent `json:"webhookEvents"` // account_privacy_events.go
		NotKeptAnywhere string               `json:"notKept"`
	}
	exportAccount struct {
		ID          string    `json:"id"`
		Email       string    `json:"email"`
		Name        string    `json:"name"`
		Role        string    `json:"role"`
		CreatedAt   time.Time `json:"createdAt"`
		Deactivated bool      `json:"deactivated"`
		Language    string    `json:"language,omitempty"`
		// CardProviderCustomers: the customer's id at each card provider
		// (provider → id), where the provider keeps their cards.
		CardProviderCustomers map[string]string `json:"cardProviderCustomers"`
	}
	exportSignIns struct {
		LastAt          *time.Time `json:"lastAt"`
		LastFrom        string     `json:"lastFrom,omitempty"`
		RecentAddresses []string   `json:"recentAddresses"`
	}
	exportAddress struct {
		Recipient string    `json:"recipient,omitempty"`
		Street    string    `json:"street"`
		Number    string    `json:"number"`
		ZipCode   string    `json:"zipCode"`
		City      string    `json:"city"`
		County    string    `json:"county,omitempty"`
		Country   string    `json:"country"`
		Default   bool      `json:"default,omitempty"`
		AddedAt   time.Time `json:"addedAt,omitzero"`
	}
	exportMoney struct {
		Cents    int64  `json:"cents"`
		Currency string `json:"currency"`
		Text     string `json:"text"`
	}
	exportCartLine struct {
		Product   string      `json:"product"`
		ProductID string      `json:"productId"`
		Quantity  int         `json:"quantity"`
		UnitPrice exportMoney `json:"unitPrice"`
		AddedAt   time.Time   `json:"addedAt"`
	}
	exportOrder struct {
		Number    string           `json:"number"`
		ID        string           `json:"id"`
		PlacedAt  time.Time        `json:"placedAt"`
		Status    string           `json:"status"`
		Buyer     exportBuyer      `json:"buyer"`
		ShipTo    exportAddress    `json:"shipTo"`
		Subtotal  exportMoney      `json:"subtotal"`
		Discount  exportMoney      `json:"discount"`
		Total     exportMoney      `json:"total"`
		Items     []exportItem     `json:"items"`
		Invoices  []exportInvoice  `json:"invoices"`
		Shipments []exportShipment `json:"shipments"`
	}
	exportBuyer struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	exportItem struct {
		Product   string      `json:"product"`
		ProductID string      `json:"productId"`
		Quantity  int         `json:"quantity"`
		Price     exportMoney `json:"unitPrice"`
		DropID    string      `json:"dropId,omitempty"`
	}
	exportInvoice struct {
		ID           string          `json:"id"`
		Date         time.Time       `json:"date"`
		Amount       exportMoney     `json:"amount"`
		Discount     exportMoney     `json:"discount"`
		DiscountCode string          `json:"discountCode,omitempty"`
		Payments     []exportPayment `json:"payments"`
	}
	exportPayment struct {
		Method string      `json:"method"`
		Amount exportMoney `json:"amount"`
	}
	exportShipment struct {
		ID          string              `json:"id"`
		Number      string              `json:"number,omitempty"`
		Status      string              `json:"status"`
		ShipTo      exportAddress       `json:"shipTo"`
		CreatedAt   time.Time           `json:"createdAt"`
		ShippedAt   *time.Time          `json:"shippedAt,omitempty"`
		DeliveredAt *time.Time          `json:"deliveredAt,omitempty"`
		Carrier     string              `json:"carrier,omitempty"`
		Tracking    string              `json:"tracking,omitempty"`
		Items       []exportShippedItem `json:"items"`
	}
	exportShippedItem struct {
		Product  string `json:"product"`
		Quantity int    `json:"quantity"`
	}
	exportSub struct {
		ID              string      `json:"id"`
		Product         string      `json:"product"`
		ProductID       string      `json:"productId"`
		Status          string      `json:"status"`
		Email           string      `json:"email"`
		MonthlyPrice    exportMoney `json:"monthlyPrice"`
		PeriodMonths    int         `json:"periodMonths"`
		PaymentDay      int         `json:"paymentDay"`
		Card            string      `json:"card"`
		NextPaymentDate string      `json:"nextPaymentDate,omitempty"`
		CreatedAt       time.Time   `json:"createdAt"`
		CancelledOn     string      `json:"cancelledOn,omitempty"`
	}
	exportReceipt struct {
		Number       string      `json:"number"`
		Subscription string      `json:"subscriptionId"`
		Product      string      `json:"product"`
		ProcessedAt  time.Time   `json:"processedAt"`
		Amount       exportMoney `json:"amount"`
		Card         string      `json:"card"`
		Email        string      `json:"email"`
		PeriodStart  string      `json:"periodStart"`
		PeriodEnd    string      `json:"periodEnd"`
		KeptUntil    time.Time   `json:"keptUntil"`
	}
	exportTicket struct {
		Drop      string    `json:"drop"`
		DropID    string    `json:"dropId"`
		ClaimedAt time.Time `json:"claimedAt"`
		Status    string    `json:"status"`
		OrderID   string    `json:"orderId,omitempty"`
	}
	exportSession struct {
		Device      string    `json:"device"`
		SignedInAt  time.Time `json:"signedInAt"`
		LastSeenAt  time.Time `json:"lastSeenAt"`
		ExpiresAt   time.Time `json:"expiresAt"`
		ThisBrowser bool      `json:"thisBrowser"`
	}
	exportMail struct {
		To      string     `json:"to"`
		Subject string     `json:"subject"`
		Kind    string     `json:"kind"`
		Text    string     `json:"text"`
		Status  string     `json:"status"`
		Created time.Time  `json:"createdAt"`
		SentAt  *time.Time `json:"sentAt,omitempty"`
	}
	exportRoleChange struct {
		At     time.Time `json:"at"`
		Action string    `json:"action"`
		From   string    `json:"from"`
		To     string    `json:"to"`
	}
)

func exportMoneyOf(m store.Money) exportMoney {
	return exportMoney{Cents: m.Amount, Currency: m.Currency, Text: m.String()}
}

func exportAddressOf(a store.Address) exportAddress {
	return exportAddress{Recipient: a.Name, Street: a.Street, Number: a.Number, ZipCode: a.ZipCode, City: a.City, County: a.County, Country: a.Country}
}

// timeOrNil leaves out a time that never happened.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func dateOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return store.FormatDate(t)
}

// exportOf is the document of d; thisSession marks the browser that asked.
func exportOf(d store.CustomerData, thisSession string, now time.Time) exportDoc {
	c := d.Customer
	doc := exportDoc{
		Shop: "Fika & Field", ExportedAt: now.UTC(),
		Account: exportAccount{ID: c.ID, Email: c.Email, Name: c.Name, Role: string(c.Role), CreatedAt: c.CreatedAt, Deactivated: c.Deactivated, Language: c.Lang,
			CardProviderCustomers: providerCustomersOf(c)},
		SignIns: exportSignIns{LastAt: timeOrNil(c.LastSignInAt), LastFrom: c.LastSignInAddress, RecentAddresses: append([]string{}, d.SignInAddresses...)},
		// Non-nil lists: an empty part reads [] rather than null.
		Addresses: []exportAddress{}, Cart: []exportCartLine{}, Orders: []exportOrder{}, Subscriptions: []exportSub{},
		Receipts: []exportReceipt{}, DropTickets: []exportTicket{}, Sessions: []exportSession{}, Mails: []exportMail{},
		AccountChanges: []exportRoleChange{}, WebhookEvents: exportWebhookEventsOf(d.WebhookEvents),
		NotKeptAnywhere: "Card numbers: the payment provider keeps them; the shop keeps each card's brand and last four digits.",
	}
	for _, a := range d.Addresses.Addresses {
		e := exportAddressOf(a.Address)
		e.Default, e.AddedAt = a.Default, a.AddedAt
		doc.Addresses = append(doc.Addresses, e)
	}
	for _, l := range d.Cart.Lines {
		doc.Cart = append(doc.Cart, exportCartLine{Product: l.ProductName, ProductID: l.ProductID, Quantity: l.Quantity, UnitPrice: exportMoneyOf(l.UnitPrice), AddedAt: l.AddedAt})
	}
	for _, od := range d.Orders {
		o := od.Order
		e := exportOrder{Number: o.Number, ID: o.ID, PlacedAt: o.PlacedAt, Status: string(o.Status), Buyer: exportBuyer{Name: o.Buyer.Name, Email: o.Buyer.Email},
			ShipTo: exportAddressOf(o.ShipTo), Subtotal: exportMoneyOf(o.Subtotal), Discount: exportMoneyOf(o.Discount), Total: exportMoneyOf(o.Total),
			Items: []exportItem{}, Invoices: []exportInvoice{}, Shipments: []exportShipment{}}
		for _, it := range od.Items {
			e.Items = append(e.Items, exportItem{Product: it.ProductName, ProductID: it.ProductID, Quantity: it.Quantity, Price: exportMoneyOf(it.Price), DropID: it.DropID})
		}
		for _, inv := range od.Invoices {
			ei := exportInvoice{ID: inv.ID, Date: inv.Date, Amount: exportMoneyOf(inv.Amount), Discount: exportMoneyOf(inv.Discount), DiscountCode: inv.DiscountCode, Payments: []exportPayment{}}
			for _, p := range inv.Payments {
				ei.Payments = append(ei.Payments, exportPayment{Method: p.Label(), Amount: exportMoneyOf(p.Amount)})
			}
			e.Invoices = append(e.Invoices, ei)
		}
		for _, sh := range od.Shipments {
			es := exportShipment{ID: sh.ID, Number: sh.Number, Status: string(sh.Status), ShipTo: exportAddressOf(sh.ShipTo), CreatedAt: sh.CreatedAt,
				ShippedAt: timeOrNil(sh.ShippedAt), DeliveredAt: timeOrNil(sh.DeliveredAt), Carrier: sh.Carrier, Tracking: sh.Tracking, Items: []exportShippedItem{}}
			for _, si := range sh.Items {
				es.Items = append(es.Items, exportShippedItem{Product: si.ProductName, Quantity: si.Quantity})
			}
			e.Shipments = append(e.Shipments, es)
		}
		doc.Orders = append(doc.Orders, e)
	}
	for _, s := range d.Subscriptions {
		doc.Subscriptions = append(doc.Subscriptions, exportSub{ID: s.ID, Product: s.ProductName, ProductID: s.ProductID, Status: string(s.Status), Email: s.Email,
			MonthlyPrice: exportMoneyOf(s.MonthlyPrice), PeriodMonths: s.PeriodMonths, PaymentDay: s.PaymentDay, Card: s.Card.Label(),
			NextPaymentDate: dateOrEmpty(s.NextPaymentDate), CreatedAt: s.CreatedAt, CancelledOn: dateOrEmpty(s.CancelledOn)})
	}
	for _, r := range d.Receipts {
		doc.Receipts = append(doc.Receipts, exportReceipt{Number: r.Number, Subscription: r.SubscriptionID, Product: r.ProductName, ProcessedAt: r.ProcessedAt,
			Amount: exportMoneyOf(r.Amount), Card: r.Card.Label(), Email: r.Email, PeriodStart: dateOrEmpty(r.PeriodStart), PeriodEnd: dateOrEmpty(r.PeriodEnd), KeptUntil: r.ExpiresAt})
	}
	for _, t := range d.Tickets {
		doc.DropTickets = append(doc.DropTickets, exportTicket{Drop: t.DropTitle, DropID: t.DropID, ClaimedAt: t.CreatedAt, Status: string(t.Status), OrderID: t.OrderID})
	}
	for _, s := range d.Sessions {
		doc.Sessions = append(doc.Sessions, exportSession{Device: s.Device, SignedInAt: s.SignedInAt, LastSeenAt: s.LastSeenAt, ExpiresAt: s.ExpiresAt, ThisBrowser: s.ID == thisSession})
	}
	for _, m := range d.Mails {
		doc.Mails = append(doc.Mails, exportMail{To: m.To, Subject: m.Subject, Kind: string(m.Kind), Text: m.Text, Status: string(m.Status), Created: m.CreatedAt, SentAt: timeOrNil(m.SentAt)})
	}
	for _, ch := range d.RoleChanges {
		doc.AccountChanges = append(doc.AccountChanges, exportRoleChange{At: ch.At, Action: string(ch.Action), From: string(ch.From), To: string(ch.To)})
	}
	return doc
}

// providerCustomersOf is the customer's customers at card providers, {}
// when none.
func providerCustomersOf(c store.Customer) map[string]string {
	out := map[string]string{}
	maps.Copy(out, c.ProviderCustomers)
	return out
}
