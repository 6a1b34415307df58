/// The compiled-in wording of every message, one Mustache template per kind and one per digest
/// (`notify --templates DIR` replaces any of them with DIR/NAME.mustache). Plain text: a `Subject:`
/// line, a blank line, the body.
enum DefaultTemplates {
    /// A new member as the `joined` message and the digest's `joined` list both introduce them.
    private static let joinedMember = """
        {{student_name}} joined {{group_name}}{{#meets}}, which meets {{meets}}{{/meets}}.
          Email:       {{student_email}}
          Phone:       {{#student_phone}}{{student_phone}}{{/student_phone}}{{^student_phone}}not given{{/student_phone}}
        {{#school_year}}
          School year: {{school_year}}
        {{/school_year}}
        """

    static let joined = """
        Subject: {{student_name}} joined {{group_name}}

        Hi {{leader_first_name}},

        \(joinedMember)

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
        \(joinedMember)

        {{/joined}}
        {{#left}}
        {{student_name}} ({{student_email}}) left {{group_name}}.

        {{/left}}
        {{#joined_count}}
        Please reach out and welcome the new members before your next meeting.

        {{/joined_count}}
        — Cru community groups (sent by crubatch)

        """

    /// To the driver (the passenger's contacts and pickup) or to the passenger (the driver's
    /// contacts, when and where the car leaves), one per leg.
    static let ridePaired = """
        Subject: {{#to_driver}}{{passenger_name}} rides with you {{trip}}{{/to_driver}}{{#to_passenger}}Your ride {{trip}}: {{driver_name}}{{/to_passenger}}

        Hi {{recipient_first_name}},

        {{#to_driver}}
        {{passenger_name}} has a seat in your car {{trip}}{{#departs}}, which leaves {{departs}} from {{car_pickup}}{{/departs}}.
          Email:  {{passenger_email}}
          Phone:  {{#passenger_phone}}{{passenger_phone}}{{/passenger_phone}}{{^passenger_phone}}not given{{/passenger_phone}}
          Pickup: {{pickup}}

        Reply to this message to write to {{passenger_first_name}} and agree on the pickup.
        {{/to_driver}}
        {{#to_passenger}}
        {{driver_name}} drives you {{trip}}{{#departs}}: the car leaves {{departs}} from {{car_pickup}}{{/departs}}.
          Email:  {{driver_email}}
          Phone:  {{#driver_phone}}{{driver_phone}}{{/driver_phone}}{{^driver_phone}}not given{{/driver_phone}}
          Pickup: {{pickup}} (where you asked to be picked up)

        Reply to this message to write to {{driver_first_name}} and agree on the pickup.
        {{/to_passenger}}

        {{event_name}} starts {{event_starts}}{{#event_location}}, {{event_location}}{{/event_location}}.

        — Cru rides (sent by crubatch)

        """

    /// To the driver, when the last seat of a leg is taken.
    static let rideFull = """
        Subject: Your car {{trip}} is full

        Hi {{recipient_first_name}},

        All {{seats}} seats of your car {{trip}}{{#departs}} (leaving {{departs}} from {{car_pickup}}){{/departs}} are taken. No one else will be paired with it unless a seat is freed, and you will get a message if one is.

        — Cru rides (sent by crubatch)

        """

    /// To the passenger, when the driver no longer takes them (the offer cancelled or changed).
    static let rideCancelled = """
        Subject: Your ride {{trip}} is cancelled

        Hi {{recipient_first_name}},

        {{driver_name}} can no longer drive you {{trip}}{{#departs}} (the car was to leave {{departs}}){{/departs}}. Your ride request is waiting for another car again: you will get a message as soon as you have a seat in one.

        Reply to this message to write to {{driver_first_name}}.

        — Cru rides (sent by crubatch)

        """

    /// To the driver, when a passenger no longer rides with them (the request cancelled or changed).
    static let seatFreed = """
        Subject: A seat is free in your car {{trip}}

        Hi {{recipient_first_name}},

        {{passenger_name}} no longer rides with you {{trip}}, so a seat of your car is free again. Another passenger may be paired with it: you will get a message if one is.

        Reply to this message to write to {{passenger_first_name}}.

        — Cru rides (sent by crubatch)

        """

    /// A driver's or passenger's ride messages together; each ride kind is a list named after it.
    static let ridesDigest = """
        Subject: Your rides: {{count}} update{{#plural}}s{{/plural}}

        Hi {{recipient_first_name}},

        {{#ride_paired}}
        {{#to_driver}}
        {{passenger_name}} has a seat in your car {{trip}}{{#departs}} (leaving {{departs}}){{/departs}}.
          Email:  {{passenger_email}}
          Phone:  {{#passenger_phone}}{{passenger_phone}}{{/passenger_phone}}{{^passenger_phone}}not given{{/passenger_phone}}
          Pickup: {{pickup}}
        {{/to_driver}}
        {{#to_passenger}}
        {{driver_name}} drives you {{trip}}{{#departs}}, leaving {{departs}} from {{car_pickup}}{{/departs}}.
          Email:  {{driver_email}}
          Phone:  {{#driver_phone}}{{driver_phone}}{{/driver_phone}}{{^driver_phone}}not given{{/driver_phone}}
          Pickup: {{pickup}}
        {{/to_passenger}}

        {{/ride_paired}}
        {{#ride_full}}
        Your car {{trip}} is full: all {{seats}} seats are taken.

        {{/ride_full}}
        {{#ride_cancelled}}
        {{driver_name}} ({{driver_email}}) can no longer drive you {{trip}}; your request is waiting for another car again.

        {{/ride_cancelled}}
        {{#seat_freed}}
        {{passenger_name}} ({{passenger_email}}) no longer rides with you {{trip}}: a seat is free again.

        {{/seat_freed}}
        {{#ride_paired_count}}
        Write to each of them at the email above to agree on the pickup.

        {{/ride_paired_count}}
        — Cru rides (sent by crubatch)

        """

    /// How to reach a newcomer and the groups that fit them, in the single message and in the digest.
    private static let newcomerDetails = """
          Phone:       {{#phone}}{{phone}}{{/phone}}{{^phone}}not given{{/phone}}
        {{#email}}
          Email:       {{email}}
        {{/email}}
        {{#school_year}}
          School year: {{school_year}}
        {{/school_year}}
        {{#groups}}
          Fits:        {{name}}{{#meets}}, {{meets}}{{/meets}} ({{members}} members)
        {{/groups}}
        {{^groups}}
          Fits:        no group with room takes them yet
        {{/groups}}
        """

    /// One newcomer, as `notify --preview newcomer` shows it (newcomers are always sent as their
    /// ministry's digest).
    static let newcomer = """
        Subject: A newcomer to follow up for {{ministry_name}}: {{name}}

        Hello {{ministry_name}} staff,

        {{name}} came to {{event_name}} ({{event_starts}}) for the first time{{#walk_in}}, signing in on the sheet{{/walk_in}}, and is in none of your groups yet.
        \(newcomerDetails)

        Please reach out to {{first_name}} this week.

        — Cru community groups (sent by crubatch)

        """

    /// A ministry's newcomers of one run, each with the groups that fit them.
    static let newcomersDigest = """
        Subject: {{count}} newcomer{{#plural}}s{{/plural}} to follow up for {{ministry_name}}

        Hello {{ministry_name}} staff,

        {{count}} {{#plural}}people{{/plural}}{{^plural}}person{{/plural}} came to an event of {{ministry_name}} for the first time and {{#plural}}are{{/plural}}{{^plural}}is{{/plural}} in none of your groups yet:

        {{#newcomer}}
        {{name}}, at {{event_name}} ({{event_starts}}){{#walk_in}}, signed in on the sheet{{/walk_in}}
        \(newcomerDetails)

        {{/newcomer}}
        Please reach out to each of them this week.

        — Cru community groups (sent by crubatch)

        """
}
