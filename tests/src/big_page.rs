//! `/big`: a catalogue page of about 5,000 elements (a navigation list, a
//! table of products with a link, a checkbox and a button on each row, and
//! a long footer), for the bench's snapshots of a page the size of a
//! real application's. Static HTML, so a snapshot measures the tree and
//! not a script building it.

use std::fmt::Write as _;
use std::sync::OnceLock;

/// Rows of the product table.
pub const BIG_ROWS: usize = 450;

/// The page's HTML.
pub fn html() -> &'static str {
    static HTML: OnceLock<String> = OnceLock::new();
    HTML.get_or_init(|| {
        let mut s = String::from(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Catalogue</title>\n\
             <style>body{font:13px sans-serif;margin:8px} td{padding:1px 6px}</style></head>\n\
             <body>\n<header><h1>Catalogue</h1><nav aria-label=\"Sections\"><ul>\n",
        );
        for i in 1..=40 {
            let _ = writeln!(s, "<li><a href=\"#section-{i}\">Section {i}</a></li>");
        }
        s.push_str(
            "</ul></nav></header>\n<main><h2>Products</h2>\n<table><thead><tr><th>No.</th>\
             <th>Product</th><th>Price</th><th>Select</th><th>Cart</th></tr></thead><tbody>\n",
        );
        for i in 1..=BIG_ROWS {
            let _ = writeln!(
                s,
                "<tr><td>{i}</td><td><a href=\"#product-{i}\">Product {i}</a></td>\
                 <td>{}.{:02} EUR</td><td><input type=\"checkbox\" aria-label=\"Select product {i}\"></td>\
                 <td><button type=\"button\">Add {i} to the cart</button></td></tr>",
                i * 3,
                (i * 7) % 100
            );
        }
        s.push_str("</tbody></table>\n");
        for i in 1..=200 {
            let _ = writeln!(s, "<p>Note {i}: delivery in {} days.</p>", i % 9 + 1);
        }
        s.push_str("</main>\n<footer><ul>\n");
        for i in 1..=300 {
            let _ = writeln!(s, "<li><span>Footer link {i}</span></li>");
        }
        s.push_str("</ul></footer>\n</body></html>\n");
        s
    })
}
