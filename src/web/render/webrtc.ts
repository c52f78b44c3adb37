/**
 * WebRTC closed in rendered pages. A peer connection sends STUN and TURN over UDP from the browser's own
 * network stack: no route, no proxy and no SSRF guard sees it, so a page could reach a loopback or
 * private address, or a server of its choice, past every wall of routing.ts. Text extraction never needs
 * it, so it is taken away twice:
 *   - in every frame, before the page's scripts run, the WebRTC constructors are deleted from the
 *     window (Playwright's init scripts run in every frame, including a script-made about:blank
 *     iframe's, and Chromium does not expose them to workers);
 *   - a local Chromium is also launched with WebRTC's non-proxied UDP switched off (WEBRTC_LAUNCH_ARGS),
 *     should a peer connection be built some other way.
 */

/** Every interface through which a page builds or drives a peer connection. */
const WEBRTC_NAMES = [
  'RTCPeerConnection',
  'webkitRTCPeerConnection',
  'RTCDataChannel',
  'RTCSessionDescription',
  'RTCIceCandidate',
  'RTCIceTransport',
  'RTCDtlsTransport',
  'RTCSctpTransport',
  'RTCRtpSender',
  'RTCRtpReceiver',
  'RTCRtpTransceiver',
  'RTCRtpScriptTransform',
  'RTCCertificate',
  'RTCDTMFSender',
  'RTCEncodedAudioFrame',
  'RTCEncodedVideoFrame',
  'RTCPeerConnectionIceEvent',
  'RTCPeerConnectionIceErrorEvent',
  'RTCDataChannelEvent',
  'RTCTrackEvent',
  'RTCError',
  'RTCErrorEvent',
  'RTCStatsReport',
];

/** Run in every frame before its scripts (context.addInitScript). */
export const NO_WEBRTC_SCRIPT = `(() => {
  for (const name of ${JSON.stringify(WEBRTC_NAMES)}) {
    try { delete globalThis[name]; } catch {}
    if (name in globalThis) { try { Object.defineProperty(globalThis, name, { value: undefined, configurable: false, writable: false }); } catch {} }
  }
})();`;

/**
 * Chromium's own switch: no UDP for WebRTC that does not go through a proxy (and the contexts' proxy is a
 * closed port). Measured on Debian's Chromium 150: `--webrtc-ip-handling-policy` leaves a peer
 * connection without a single candidate and sends nothing, while `--force-webrtc-ip-handling-policy`
 * (the older spelling, kept for older builds) no longer has any effect: STUN still went out over UDP.
 */
export const WEBRTC_LAUNCH_ARGS = ['--webrtc-ip-handling-policy=disable_non_proxied_udp', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp'];
