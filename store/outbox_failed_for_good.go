package store

// MailFailedForGood is a mail the deliverer gave up on after its last
// attempt (jobs.DeliveryConfig.MaxAttempts, GiveUpAfter). It stays in the outbox, with
// its attempts and last error for staff to read, but leaves the delivery
// queue: newMailRecord gives GSI2 keys to pending and failed mails only, so
// PendingMail no longer returns it.
const MailFailedForGood MailStatus = "failed_for_good"
