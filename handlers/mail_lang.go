package handlers

import "shop/views/lang"

// mailLang is the language of a mail to a customer, as copied onto the
// order (or read from their record): English for one from before ("").
func mailLang(code string) lang.Lang {
	if l, ok := lang.Parse(code); ok {
		return l
	}
	return lang.English
}

// mailHello greets the customer by name, or without one.
func mailHello(l lang.Lang, name string) string {
	if name == "" {
		return lang.In(l, "mail.hello_anon")
	}
	return lang.In(l, "mail.hello_name", "Name", name)
}
