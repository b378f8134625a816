//! Who the brain says it is in its reply to `ABOUT`: the `[about]` keys of the
//! configuration, so that an entrant names themselves without recompiling.

use crate::config::Config;

/// The fields of the `ABOUT` line. Empty fields are sent empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub version: String,
    pub author: String,
    pub country: String,
    pub www: String,
    pub email: String,
}

impl Identity {
    /// The `[about]` keys of `config`; an empty `about.version` is the version of this
    /// build (Cargo.toml), an empty name the brain's own.
    pub fn from_config(config: &Config) -> Identity {
        let field = |key: &str| config.get_str(key, "").trim().to_string();
        let or = |value: String, default: &str| {
            if value.is_empty() {
                default.to_string()
            } else {
                value
            }
        };
        Identity {
            name: or(field("about.name"), "Wuzi"),
            version: or(field("about.version"), env!("CARGO_PKG_VERSION")),
            author: field("about.author"),
            country: field("about.country"),
            www: field("about.www"),
            email: field("about.email"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigSource;

    #[test]
    fn the_defaults_are_honest_and_a_file_changes_them() {
        let default = Identity::from_config(&Config::embedded());
        assert_eq!(default.name, "Wuzi");
        assert_eq!(default.version, env!("CARGO_PKG_VERSION"));
        assert_eq!(default.author, "Wuzi developers");
        assert_eq!((default.www.as_str(), default.email.as_str()), ("", ""));
        let text = "[about]\nauthor = Jane Doe\ncountry = CZ\nversion = 2.0-gomocup\n";
        let config = Config::from_text(text, ConfigSource::Embedded);
        assert_eq!(config.take_warning(), None);
        let set = Identity::from_config(&config);
        assert_eq!(set.author, "Jane Doe");
        assert_eq!(set.country, "CZ");
        assert_eq!(set.version, "2.0-gomocup");
        assert_eq!(set.name, "Wuzi");
    }
}
