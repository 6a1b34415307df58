/// The compiled-in wording of every message, one Mustache template per kind and one for digests
/// (`notify --templates DIR` replaces any of them with DIR/NAME.mustache). Plain text: a `Subject:`
/// line, a blank line, the body.
enum DefaultTemplates {
    static let joined = """
        Subject: {{student_name}} joined {{group_name}}

        Hi {{leader_first_name}},

        {{student_name}} joined {{group_name}}{{#meets}}, which meets {{meets}}{{/meets}}.
          Email:       {{student_email}}
          Phone:       {{#student_phone}}{{student_phone}}{{/student_phone}}{{^student_phone}}not given{{/student_phone}}
        {{#school_year}}
          School year: {{school_year}}
        {{/school_year}}

        Please reach out and welcome them before your next meeting: reply to this message to write to {{student_first_name}}.

        — Cru community groups (sent by crubatch)

        """

    static let welcome = """
        Subject: Welcome to {{group_name}}

        Hi {{student_first_name}},

        Welcome to {{group_name}}!{{#meets}} It meets {{meets}}.{{/meets}}

        Your leaders:
        {{#leaders}}
          {{name}}
            Email: {{email}}
        {{#phone}}
            Phone: {{phone}}
        {{/phone}}
        {{/leaders}}

        Reply to this message to write to {{reply_to_name}}, or write to any of your leaders. See you there!

        — Cru community groups (sent by crubatch)

        """

    static let left = """
        Subject: {{student_name}} left {{group_name}}

        Hi {{leader_first_name}},

        {{student_name}} is no longer a member of {{group_name}}.
          Email:       {{student_email}}
          Phone:       {{#student_phone}}{{student_phone}}{{/student_phone}}{{^student_phone}}not given{{/student_phone}}

        Reply to this message to write to {{student_first_name}}.

        — Cru community groups (sent by crubatch)

        """

    /// A leader's messages together; each digestible kind is a list named after it.
    static let digest = """
        Subject: {{#joined_count}}{{joined_count}} new member{{#joined_plural}}s{{/joined_plural}}{{#left_count}} and {{/left_count}}{{/joined_count}}{{#left_count}}{{left_count}} member{{#left_plural}}s{{/left_plural}} who left{{/left_count}} in your community groups

        Hi {{leader_first_name}},

        {{#joined}}
        {{student_name}} joined {{group_name}}{{#meets}}, which meets {{meets}}{{/meets}}.
          Email:       {{student_email}}
          Phone:       {{#student_phone}}{{student_phone}}{{/student_phone}}{{^student_phone}}not given{{/student_phone}}
        {{#school_year}}
          School year: {{school_year}}
        {{/school_year}}

        {{/joined}}
        {{#left}}
        {{student_name}} ({{student_email}}) left {{group_name}}.

        {{/left}}
        {{#joined_count}}
        Please reach out and welcome the new members before your next meeting.

        {{/joined_count}}
        — Cru community groups (sent by crubatch)

        """
}
