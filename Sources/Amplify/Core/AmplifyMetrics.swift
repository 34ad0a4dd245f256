import CoreMetrics

/// The metrics Amplify reports through swift-metrics, and how its parts decide whether to report
/// at all. Nothing is reported until the application bootstraps a backend
/// (`MetricsSystem.bootstrap`); each part looks at `MetricsSystem.factory` once, when it is
/// made (the Hub plugin on first use of `Amplify.Hub` and after `Amplify.reset()`, the HTTP
/// client, the Auth and Analytics plugins when they are made), and with the no-op factory it
/// keeps no metric objects and does no metric work on its paths. Bootstrap before the first
/// use of Amplify. `Docs/Metrics.md` has the table of names and dimensions.
public enum AmplifyMetrics {
    /// `factory`, or `MetricsSystem.factory` when it is `nil`; `nil` when that is swift-metrics'
    /// no-op factory (no backend bootstrapped), so callers skip the work.
    public static func activeFactory(_ factory: (any MetricsFactory)? = nil) -> (any MetricsFactory)? {
        let chosen = factory ?? MetricsSystem.factory
        return chosen is NOOPMetricsHandler ? nil : chosen
    }

    // MARK: Hub

    /// Counter: Hub events taken from the queue by the loop (every dispatched event, counted per
    /// drain).
    public static let hubDispatched = "amplify_hub_dispatched_total"
    /// Counter: listener calls (one per listener and event that passed its filter).
    public static let hubDelivered = "amplify_hub_delivered_total"
    /// Recorder (gauge): how many events were waiting when the loop took the queue.
    public static let hubQueueDepth = "amplify_hub_queue_depth"
    /// Counter: listeners reported as holding the loop past the slow-listener threshold.
    public static let hubSlowListeners = "amplify_hub_slow_listeners_total"

    // MARK: HTTP

    /// Counter, dimensions `service`, `operation`, `status` (the HTTP status, or `connection`,
    /// `timeout`, `cancelled`, `other` when no answer came): every HTTP attempt.
    public static let httpRequests = "amplify_http_requests_total"
    /// Timer, dimensions `service`, `operation`: each attempt, from start to the whole answer.
    public static let httpRequestDuration = "amplify_http_request_duration_seconds"
    /// Counter, dimensions `service`, `operation`: attempts made again after a retryable failure.
    public static let httpRetries = "amplify_http_retries_total"

    // MARK: Analytics

    /// Counter, dimension `plugin`: events stored in the durable queue.
    public static let analyticsQueued = "amplify_analytics_queued_total"
    /// Counter, dimension `plugin`: events the target accepted.
    public static let analyticsSent = "amplify_analytics_sent_total"
    /// Counter, dimensions `plugin`, `stage` (`record`: the event could not be stored, because
    /// recording is disabled, the queue is full or the store failed; `flush`: the target could
    /// not be reached, and the event stays queued).
    public static let analyticsFailed = "amplify_analytics_failed_total"
    /// Counter, dimension `plugin`: events the target refused (retried, then set aside).
    public static let analyticsRefused = "amplify_analytics_refused_total"
    /// Counter, dimension `plugin`: events set aside after repeated refusals.
    public static let analyticsSetAside = "amplify_analytics_set_aside_total"
    /// Recorder (gauge), dimension `plugin`: events waiting in the queue after a flush.
    public static let analyticsWaiting = "amplify_analytics_waiting"

    // MARK: Storage

    /// Counter, dimension `direction` (`up`, `down`): bytes transferred, as transfers report
    /// progress.
    public static let storageBytes = "amplify_storage_bytes_total"
    /// Counter, dimensions `direction`, `outcome` (`completed`, `failed`, `cancelled`): transfers
    /// that finished.
    public static let storageTransfers = "amplify_storage_transfers_total"

    // MARK: Auth

    /// Counter, dimensions `plugin`, `result` (`success`, `challenge`: a next step is needed,
    /// `failure`): sign-in calls (`signIn`, `confirmSignIn`, the hosted UI).
    public static let authSignIns = "amplify_auth_sign_ins_total"
    /// Counter, dimension `plugin`: token refreshes that succeeded.
    public static let authRefreshes = "amplify_auth_refreshes_total"
    /// Counter, dimensions `plugin`, `reason` (`refused`: the session ended; `unreachable`: the
    /// service could not be asked, and the session is kept).
    public static let authRefreshFailures = "amplify_auth_refresh_failures_total"
    /// Counter, dimension `plugin`: sessions that expired (`Auth.sessionExpired`).
    public static let authSessionExpiries = "amplify_auth_session_expiries_total"
    /// Counter, dimensions `tenant`, `kind`: what a fleet's shared session store did and met —
    /// `refreshed` (this instance refreshed a session under its lease), `adopted` (it took another
    /// instance's refresh), `waited` (another instance held the lease), `fenced` (its write was
    /// refused: its lease had expired and been taken), `restored` (a record Redis lost was saved
    /// again), `unreachable` (Redis could not be asked), `revoked` (a revocation from another
    /// instance applied).
    public static let authFleetEvents = "amplify_auth_fleet_events_total"
}
