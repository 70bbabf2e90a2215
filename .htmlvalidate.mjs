// html-validate's configuration for every page the web package's HTTP tests
// render (web/htmlvalidate_test.go runs it once the tests have run). Each
// rule turned off says why beside it.
export default {
  extends: ["html-validate:recommended"],
  rules: {
    // templ writes the doctype as <!doctype html>; HTML treats either case
    // the same, so this is a matter of style only.
    "doctype-style": "off",
    // A label that wraps its field also names it with for="…": kept on
    // purpose, because some speech-input and older assistive tools follow
    // only for/id, and the tests find fields through it.
    "no-redundant-for": "off",
    // Every list table has one header row in <thead>, which HTML's table
    // model already makes column headers; a full-width row (colspan) for
    // "Show more" or "nothing yet" makes html-validate call the table
    // complex and ask for scope="col" on each. Row headers in a <tbody>
    // carry scope="row".
    "wcag/h63": "off",
    // The staff console's job-run page reloads itself every 2 s inside
    // <noscript>, to follow a running job without JavaScript (with it, htmx
    // polls). Staff open that page to watch it change.
    "meta-refresh": "off",
    // Checkboxes that choose several of one kind (the packing queue's
    // orders) share their name, as HTML forms send a list: order=a&order=b.
    "form-dup-name": ["error", { shared: ["radio", "checkbox", "button", "reset", "submit"] }],
  },
};
