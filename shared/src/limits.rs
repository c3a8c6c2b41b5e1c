//! Size, count and time limits of both links (DESIGN §4).
//!
//! Every limit is a constant here; code that enforces one takes it as a
//! value so tests can pass a smaller one.

/// Largest native message the host may send to the extension (browser limit).
pub const MAX_HOST_TO_EXTENSION: usize = 1024 * 1024;

/// Largest native message the host accepts from the extension.
pub const MAX_EXTENSION_TO_HOST: usize = 16 * 1024 * 1024;

/// Largest controller line (without its newline); a longer one closes that
/// connection.
pub const MAX_CONTROLLER_LINE: usize = 1024 * 1024;

/// Requests in flight on one agent connection.
pub const MAX_IN_FLIGHT_PER_CONNECTION: usize = 16;

/// Requests in flight in the whole daemon.
pub const MAX_IN_FLIGHT_TOTAL: usize = 64;

/// Captures in flight on one agent connection (inside its in-flight limit).
pub const MAX_MEDIA_IN_FLIGHT_PER_CONNECTION: usize = 12;

/// Captures in flight in the whole daemon (inside its in-flight limit).
pub const MAX_MEDIA_IN_FLIGHT_TOTAL: usize = 48;

/// How long a session whose connection dropped keeps its control lease and
/// held input, waiting for `session.resume`, in milliseconds. Past it the
/// lease is revoked and held input released; the ticket stays resumable
/// until [`UNBOUND_TICKET_TTL_MS`].
pub const RESUME_GRACE_MS: u64 = 10_000;

/// How long a request waits for a browser lane that went offline to come
/// back (a worker restart, a relay started again), within its own
/// deadline, in milliseconds. Past it the browser is taken as gone (it
/// quit): waiting requests fail `RUNTIME_LOST`, and so do new ones at once.
pub const LANE_RETURN_GRACE_MS: u64 = 5_000;

/// The longest a session may keep its control leases without a connection
/// (`session.hello`'s `keepControlMs`), in milliseconds: five minutes.
pub const MAX_KEEP_CONTROL_MS: u64 = 300_000;

/// Tolerance, in CSS pixels, between a frame's viewport and the live one
/// ([`crate::geometry::FrameGeometry::matches`]).
pub const GEOMETRY_TOLERANCE: f64 = 1.0;

/// Frames (captures) remembered per session for coordinate input.
pub const MAX_FRAMES_PER_SESSION: usize = 8;

/// Longest expression accepted by `page.evaluate`, in bytes.
pub const MAX_EXPRESSION: usize = 256 * 1024;

/// Deadline of a command that names none, in milliseconds.
pub const DEFAULT_DEADLINE_MS: u64 = 30_000;

/// Longest deadline a command may ask for, in milliseconds.
pub const MAX_DEADLINE_MS: u64 = 300_000;

/// Time a ticket may stay unbound (no connection) before it expires, in
/// milliseconds.
pub const UNBOUND_TICKET_TTL_MS: u64 = 600_000;

/// Most unbound tickets the daemon keeps.
pub const MAX_UNBOUND_TICKETS: usize = 256;

/// Longest agent name accepted in `session.hello`, in bytes.
pub const MAX_AGENT_NAME: usize = 64;

/// Longest text accepted by `input.type`, in bytes.
pub const MAX_TYPE_TEXT: usize = 64 * 1024;

/// Longest url accepted by `page.navigate`, in bytes.
pub const MAX_URL: usize = 8 * 1024;

/// Tabs of one lane that may be shared with agents at once.
pub const MAX_SHARED_TABS: usize = 16;

/// How long a partial controller line (bytes without their newline) may
/// wait for the rest, in milliseconds; past it the daemon closes that
/// connection. The same deadline bounds how long one outgoing line may wait
/// for the agent to read it. An idle connection with nothing pending is
/// never closed for it.
pub const LINE_IDLE_MS: u64 = 30_000;

/// Outgoing lines queued for one agent connection. A response that finds
/// the queue full means the agent stopped reading: that connection is
/// dropped. Notifications use only the first half, so they alone never
/// cause it.
pub const MAX_QUEUED_LINES_PER_CONNECTION: usize = 256;

/// Agent connections the daemon keeps open at once (fewer when the
/// process may open few files). One past it is answered `BUSY` and closed.
pub const MAX_AGENT_CONNECTIONS: usize = 256;

/// How long a [`crate::native::HostToExtension::SocketOffer`]'s token
/// may be used, from when it was sent.
pub const SOCKET_OFFER_TTL_MS: u64 = 10_000;

/// Browser (relay) connections the daemon keeps open at once: one is the
/// lane, the others are relays saying hello. One past it is closed.
pub const MAX_LANE_CONNECTIONS: usize = 8;

/// Default `maxChars` of `page.snapshot`.
pub const DEFAULT_SNAPSHOT_CHARS: usize = 40_000;

/// Largest `maxChars` of `page.snapshot`.
pub const MAX_SNAPSHOT_CHARS: usize = 400_000;
