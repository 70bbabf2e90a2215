package handlers

import "shop/views/lang"

// mailHello greets the customer by name, or without one.
func mailHello(l lang.Lang, name string) string {
	if name == "" {
		return lang.In(l, "mail.hello_anon")
	}
	return lang.In(l, "mail.hello_name", "Name", name)
}
