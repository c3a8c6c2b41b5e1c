//! Pages of the task bench (`cargo xtask bench tasks`): a form that checks
//! what it is given, and the catalogue of [`crate::big_page`] with a cart
//! that says what was added. Served under `/tasks/`.

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

/// The page of a `/tasks/` path, if there is one.
pub fn page(path: &str) -> Option<&'static str> {
    match path {
        "/tasks/form" => Some(FORM),
        "/tasks/big" => Some(big()),
        _ => None,
    }
}
