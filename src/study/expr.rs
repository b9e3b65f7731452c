//! Arithmetic in study files: `"sqrt(2*9.81/0.146)"`, `"1/0.146"`, `"2*pi*0.75"`. Numbers,
//! `+ - * / ^` (power, right-associative), parentheses, unary minus, `pi`, and the functions
//! `sqrt exp ln sin cos tan tanh abs`. No variables: a study's numbers are constants.

/// The value of `text`, or what is wrong with it.
pub fn eval(text: &str) -> Result<f64, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
    };
    let v = p.sum()?;
    p.space();
    if p.at != p.s.len() {
        return Err(format!(
            "unexpected `{}` at character {} of the expression `{text}`",
            char::from(p.s[p.at]),
            p.at + 1
        ));
    }
    if !v.is_finite() {
        return Err(format!(
            "the expression `{text}` is not a finite number ({v})"
        ));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.space();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut v = self.product()?;
        loop {
            if self.eat(b'+') {
                v += self.product()?;
            } else if self.eat(b'-') {
                v -= self.product()?;
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut v = self.unary()?;
        loop {
            if self.eat(b'*') {
                v *= self.unary()?;
            } else if self.eat(b'/') {
                v /= self.unary()?;
            } else {
                return Ok(v);
            }
        }
    }

    /// A sign binds less tightly than a power: `-2^2` is −4.
    fn unary(&mut self) -> Result<f64, String> {
        if self.eat(b'-') {
            return Ok(-self.unary()?);
        }
        if self.eat(b'+') {
            return self.unary();
        }
        self.power()
    }

    /// `a ^ b`, right-associative; the exponent may carry a sign (`10^-3`).
    fn power(&mut self) -> Result<f64, String> {
        let base = self.atom()?;
        if self.eat(b'^') {
            Ok(base.powf(self.unary()?))
        } else {
            Ok(base)
        }
    }

    fn atom(&mut self) -> Result<f64, String> {
        self.space();
        if self.eat(b'(') {
            let v = self.sum()?;
            return if self.eat(b')') {
                Ok(v)
            } else {
                Err("a `(` without its `)`".into())
            };
        }
        let start = self.at;
        let Some(&c) = self.s.get(self.at) else {
            return Err("the expression ends where a number was expected".into());
        };
        if c.is_ascii_alphabetic() {
            while self.at < self.s.len() && self.s[self.at].is_ascii_alphanumeric() {
                self.at += 1;
            }
            let name = std::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
            if name == "pi" {
                return Ok(std::f64::consts::PI);
            }
            let f: fn(f64) -> f64 = match name {
                "sqrt" => f64::sqrt,
                "exp" => f64::exp,
                "ln" => f64::ln,
                "sin" => f64::sin,
                "cos" => f64::cos,
                "tan" => f64::tan,
                "tanh" => f64::tanh,
                "abs" => f64::abs,
                _ => {
                    return Err(format!(
                        "unknown name `{name}` (known: pi, sqrt, exp, ln, sin, cos, tan, tanh, abs)"
                    ))
                }
            };
            if !self.eat(b'(') {
                return Err(format!("`{name}` needs its argument in parentheses"));
            }
            let v = self.sum()?;
            if !self.eat(b')') {
                return Err(format!("`{name}(` without its `)`"));
            }
            return Ok(f(v));
        }
        while self.at < self.s.len()
            && (self.s[self.at].is_ascii_digit()
                || self.s[self.at] == b'.'
                || matches!(self.s[self.at], b'e' | b'E')
                || (matches!(self.s[self.at], b'+' | b'-')
                    && self.at > start
                    && matches!(self.s[self.at - 1], b'e' | b'E')))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
        text.parse::<f64>()
            .map_err(|_| format!("expected a number at character {}", start + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::eval;

    #[test]
    fn arithmetic() {
        assert_eq!(eval("1/0.146").unwrap(), 1.0 / 0.146);
        assert_eq!(
            eval("sqrt(2*9.81/0.146)").unwrap(),
            (2.0 * 9.81 / 0.146f64).sqrt()
        );
        assert_eq!(eval("2^3^2").unwrap(), 512.0);
        assert_eq!(eval("-2^2").unwrap(), -4.0);
        assert_eq!(eval(" (1 + 2) * 3 - 1e-3 ").unwrap(), 9.0 - 1e-3);
        assert_eq!(eval("10^-3").unwrap(), 1e-3);
        assert_eq!(eval("2*pi").unwrap(), 2.0 * std::f64::consts::PI);
        assert_eq!(eval("1.5E+2").unwrap(), 150.0);
        for bad in ["", "1 +", "(1", "foo(2)", "sqrt 2", "1/0", "2 3", "1e999"] {
            assert!(eval(bad).is_err(), "{bad}");
        }
    }
}
