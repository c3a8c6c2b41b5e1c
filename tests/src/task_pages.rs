//! Pages of the task bench (`cargo xtask bench tasks`): a form that checks
//! what it is given, the catalogue of [`crate::big_page`] with a cart
//! that says what was added, a three-page checkout that asks for a
//! confirmation, a long article, and a page that opens a price list in a
//! tab of its own. Served under `/tasks/`.

use std::sync::OnceLock;

/// Twelve fields, checked when the form is sent: each wrong one is marked
/// invalid, with what is wrong said beside it and in an alert above the
/// form; a form with nothing wrong is replaced by a thank-you.
pub const FORM: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Register</title>
<style>body{font:14px sans-serif;margin:12px} label{display:block;margin:4px 0} .error{color:#b00}</style>
</head><body>
<h1>Register for the conference</h1>
<div id="problems" role="alert"></div>
<form id="f" novalidate>
<label>Full name <input name="name" autocomplete="off"></label>
<label>Email <input name="email" autocomplete="off"></label>
<label>Phone <input name="phone" autocomplete="off"></label>
<label>Company <input name="company" autocomplete="off"></label>
<label>Street <input name="street" autocomplete="off"></label>
<label>City <input name="city" autocomplete="off"></label>
<label>Postcode <input name="postcode" autocomplete="off"></label>
<label>Country <select name="country"><option value="">Choose…</option><option>France</option><option>Germany</option><option>Italy</option><option>Spain</option><option>United Kingdom</option></select></label>
<label>Ticket <select name="ticket"><option value="">Choose…</option><option>Standard</option><option>Student</option><option>Speaker</option></select></label>
<label>Dietary needs <input name="diet" autocomplete="off"></label>
<label>How did you hear of us <input name="source" autocomplete="off"></label>
<label><input type="checkbox" name="terms"> I accept the terms</label>
<button type="submit">Register</button>
</form>
<script>
const rules = {
  name: v => v.trim().length >= 2 || 'Full name is required',
  email: v => /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(v) || 'Email must look like name@example.com',
  phone: v => v.replace(/\D/g, '').length >= 10 || 'Phone must have at least 10 digits',
  company: () => true,
  street: v => v.trim() !== '' || 'Street is required',
  city: v => v.trim() !== '' || 'City is required',
  postcode: v => /^\d{5}$/.test(v) || 'Postcode must be 5 digits',
  country: v => v !== '' || 'Choose a country',
  ticket: v => v !== '' || 'Choose a ticket',
  diet: () => true,
  source: () => true,
};
const f = document.getElementById('f');
f.addEventListener('submit', e => {
  e.preventDefault();
  for (const old of document.querySelectorAll('.error')) old.remove();
  const wrong = [];
  for (const [name, rule] of Object.entries(rules)) {
    const el = f.elements[name];
    const ok = rule(el.value);
    el.removeAttribute('aria-invalid');
    if (ok !== true) {
      el.setAttribute('aria-invalid', 'true');
      const p = document.createElement('span');
      p.className = 'error';
      p.textContent = ' ' + ok;
      el.after(p);
      wrong.push(ok);
    }
  }
  if (!f.elements.terms.checked) wrong.push('Accept the terms');
  const box = document.getElementById('problems');
  box.textContent = wrong.length ? wrong.length + ' problem(s): ' + wrong.join('; ') : '';
  if (!wrong.length) {
    document.body.innerHTML = '<h1>Thank you, ' + f.elements.name.value.replace(/[<&]/g, '') + '</h1><p>Your ticket is booked.</p>';
  }
});
</script>
</body></html>
"#;

/// The catalogue with a cart: each row's button adds its product, and a
/// status line at the top says what the cart holds.
pub fn big() -> &'static str {
    static HTML: OnceLock<String> = OnceLock::new();
    HTML.get_or_init(|| {
        crate::big_page::html()
            .replacen(
                "<main>",
                "<main><p role=\"status\" id=\"cart\">The cart is empty.</p>",
                1,
            )
            .replacen(
                "</body>",
                "<script>document.querySelector('tbody').addEventListener('click', e => {\
                 const b = e.target.closest('button'); if (!b) return;\
                 const row = b.closest('tr');\
                 document.getElementById('cart').textContent = 'The cart holds ' + \
                 row.cells[1].textContent + ' at ' + row.cells[2].textContent + '.';});\
                 </script></body>",
                1,
            )
    })
}

/// The checkout's first page: the basket, with a link onwards.
pub const SHOP: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Basket</title></head><body>
<h1>Your basket</h1>
<ul><li>Desk lamp, 42.00 EUR</li></ul>
<a href="/tasks/shipping">Checkout</a>
</body></html>
"#;

/// The checkout's second page: where to ship, sent on to the payment.
pub const SHIPPING: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Shipping</title></head><body>
<h1>Shipping</h1>
<form action="/tasks/pay" method="get">
<label>Full name <input name="name" autocomplete="off"></label>
<label>Street <input name="street" autocomplete="off"></label>
<label>City <input name="city" autocomplete="off"></label>
<button type="submit">Continue</button>
</form>
</body></html>
"#;

/// The checkout's last page: placing the order asks for a confirmation,
/// then says the order's number.
pub const PAY: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Payment</title></head><body>
<h1>Payment</h1>
<p id="to"></p>
<button id="place">Place order</button>
<p role="status" id="done"></p>
<script>
const q = new URLSearchParams(location.search);
document.getElementById('to').textContent = 'Ship to ' + (q.get('name') || '?') + ', ' + (q.get('city') || '?');
document.getElementById('place').addEventListener('click', () => {
  if (!confirm('Place the order for 42.00 EUR?')) return;
  document.getElementById('done').textContent = 'Order 1042 placed for ' + (q.get('name') || '?') + '.';
});
</script>
</body></html>
"#;

/// A long article (about 4,000 words) with one fact the task asks for in
/// the middle of it.
pub fn article() -> &'static str {
    static HTML: OnceLock<String> = OnceLock::new();
    HTML.get_or_init(|| {
        let mut html = String::from(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>The river crossings</title></head>\
             <body><article><h1>A history of the river crossings</h1>",
        );
        for section in 1..=12 {
            html.push_str(&format!("<h2>Part {section}</h2>"));
            for paragraph in 1..=6 {
                if section == 7 && paragraph == 4 {
                    html.push_str(
                        "<p>After nine years of work, the Aldersgate Bridge opened to carts \
                         and walkers on 14 March 1887, with a toll of one penny.</p>",
                    );
                    continue;
                }
                html.push_str(&format!(
                    "<p>In part {section}, paragraph {paragraph}: the ferrymen of the lower \
                     reach kept their landings in repair through floods and frosts, and the \
                     parish records note each boat, each keeper and each dispute over the \
                     fares with a patience that later historians have found both useful \
                     and, at times, tiresome to read in full.</p>"
                ));
            }
        }
        html.push_str("</article></body></html>");
        html
    })
}

/// A page that opens the price list in a tab of its own and keeps what
/// the person saw there.
pub const TABS: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Plans</title></head><body>
<h1>Choose a plan</h1>
<a href="/tasks/prices" target="_blank">Open the price list</a>
<label>Gold price seen <input id="seen" autocomplete="off"></label>
<button id="save">Save</button>
<p role="status" id="saved"></p>
<script>
document.getElementById('save').addEventListener('click', () => {
  document.getElementById('saved').textContent = 'Saved: ' + document.getElementById('seen').value;
});
</script>
</body></html>
"#;

/// The price list [`TABS`] opens.
pub const PRICES: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Price list</title></head><body>
<h1>Prices</h1>
<table><tr><th>Plan</th><th>Per month</th></tr>
<tr><td>Silver</td><td>12 EUR</td></tr>
<tr><td>Gold</td><td>29 EUR</td></tr>
<tr><td>Platinum</td><td>61 EUR</td></tr></table>
</body></html>
"#;

/// The page of a `/tasks/` path, if there is one.
pub fn page(path: &str) -> Option<&'static str> {
    match path {
        "/tasks/form" => Some(FORM),
        "/tasks/big" => Some(big()),
        "/tasks/shop" => Some(SHOP),
        "/tasks/shipping" => Some(SHIPPING),
        "/tasks/pay" => Some(PAY),
        "/tasks/article" => Some(article()),
        "/tasks/tabs" => Some(TABS),
        "/tasks/prices" => Some(PRICES),
        _ => None,
    }
}
