import Amplify

/// The routes' HTML: plain forms, no JavaScript, every outside text escaped. Inputs are named
/// (and have the ids) `username`, `password`, `email`, `code`; each form's button has the id
/// `submit`, each page's message the id `message`.
extension AuthRoutes {
    /// The name of the double-submit CSRF cookie every form's `csrf` field must match.
    static let csrfCookie = "com.amplify.server_auth.csrf"

    /// One input of a form.
    struct Field {
        let name: String
        let label: String
        let type: String
        var value: String = ""
        var autocomplete: String = "off"
    }

    /// A page with a heading, a message and an optional form, setting `setCookies`.
    func page(
        status: Int, heading: String, message: String = "", isError: Bool = true, form: (action: Route, fields: [Field], button: String)? = nil,
        hidden: [String: String] = [:], csrf: String? = nil, links: [(Route, String)] = [], extra: String = "", setCookies: [String] = []
    ) -> AuthRouteResponse {
        var body = "<h1>\(Self.escape(heading))</h1>\n"
        if !message.isEmpty {
            body += "<p id=\"message\" class=\"\(isError ? "error" : "notice")\">\(Self.escape(message))</p>\n"
        }
        if let form {
            body += "<form method=\"post\" action=\"\(Self.escape(path(form.action)))\">\n"
            for field in form.fields {
                body += """
                    <label for="\(field.name)">\(Self.escape(field.label))</label>
                    <input id="\(field.name)" name="\(field.name)" type="\(field.type)" value="\(Self.escape(field.value))" autocomplete="\(field.autocomplete)" required>

                    """
            }
            if let csrf { body += "<input type=\"hidden\" name=\"csrf\" value=\"\(Self.escape(csrf))\">\n" }
            for (name, value) in hidden.sorted(by: { $0.key < $1.key }) {
                body += "<input type=\"hidden\" name=\"\(Self.escape(name))\" value=\"\(Self.escape(value))\">\n"
            }
            body += "<button id=\"submit\" type=\"submit\">\(Self.escape(form.button))</button>\n</form>\n"
        }
        body += extra
        if !links.isEmpty {
            body +=
                "<p>"
                + links.map { "<a id=\"\($0.0.rawValue)\" href=\"\(Self.escape(path($0.0)))\">\(Self.escape($0.1))</a>" }.joined(separator: " · ")
                + "</p>\n"
        }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(heading)) · \(Self.escape(configuration.title))</title>
            <style>body{font:16px system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}label,input,button{display:block;width:100%;box-sizing:border-box}input{margin:.25rem 0 1rem;padding:.5rem}button{padding:.6rem;font-weight:600}.error{color:#b00020}.notice{color:#1b5e20}pre{background:#f4f4f4;padding:.5rem}</style>
            </head><body>
            \(body)</body></html>

            """
        return AuthRouteResponse(status: status, setCookies: setCookies, html: html)
    }

    /// The CSRF value for a page's forms: the request's cookie, or a new one (and its `Set-Cookie`).
    func csrfToken(_ request: AuthRouteRequest) -> (token: String, setCookie: [String])? {
        if let existing = Self.cookie(Self.csrfCookie, in: request), existing.utf8.count == 43 { return (existing, []) }
        guard let token = Self.randomToken() else { return nil }
        let attributes = AmplifyJSCookies.Attributes(
            maxAge: 86_400, path: proofCookies.path, secure: proofCookies.secure, httpOnly: true, sameSite: "Strict")
        return (token, [AmplifyJSCookies.cookie(name: Self.csrfCookie, value: token, maxAge: attributes.maxAge, attributes)])
    }

    /// A refusal when a `POST`'s `csrf` field is missing or is not its cookie's value.
    func csrfRefusal(_ request: AuthRouteRequest) -> AuthRouteResponse? {
        guard let sent = request.form["csrf"], let expected = Self.cookie(Self.csrfCookie, in: request), Self.same(sent, expected) else {
            return page(
                status: 403, heading: "Refused", message: "This form expired or did not come from this site. Reload the page and try again.",
                links: [(.signIn, "Sign in")])
        }
        return nil
    }

    /// `text` safe inside HTML text and quoted attributes.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
