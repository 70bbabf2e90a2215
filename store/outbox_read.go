package store

import (
	"context"
	"regexp"
)

// dottedMailID is the shape of the ids sign-up verification and password
// reset mails had until their timestamp lost its dot (see MailID):
// verify-<customer id>-20261128T011055.808. The outbox keeps mails 180
// days, so its page still opens those; nothing else takes a dot.
var dottedMailID = regexp.MustCompile(`^(?:verify|reset)-[0-9A-Za-z_-]{1,64}-[0-9]{8}T[0-9]{6}\.[0-9]{3}$`)

// OutboxID reports whether id can name a mail of the outbox: an id
// (ValidID, which every mail written now has), or an account mail's of
// before, with its dot.
func OutboxID(id string) bool { return ValidID(id) || dottedMailID.MatchString(id) }

// Mail reads one mail of the outbox by its id (PK=SK=mail#id);
// ErrNotFound if there is none.
func (s *Store) Mail(ctx context.Context, id string) (Mail, error) {
	if !OutboxID(id) {
		return Mail{}, ErrNotFound
	}
	return getItem(ctx, s, mailKey(id), mailKey(id), "mail "+id, mailRecord.mail)
}
