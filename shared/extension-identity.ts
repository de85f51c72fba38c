/**
 * Who the extension is, so the native host manifest can name it (design.md §8). The Chromium id is
 * stable because the manifest carries this public key (base64 DER): the id is the first 32 hex
 * digits of sha256(key) written with the letters a–p (a unit test derives it). Firefox uses the
 * gecko id instead.
 */
export const EXTENSION_KEY =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAsZh++Fm40rlKk87hM8wXFR4AtkPlZDtBKAC712cZFCEWcQiSmEGmyTyECsxnztNv04kYcDYZETPifxId4xNLDtHx/4FhrP7CFK4fga0D/bVrSQiAGmy5NWhPtHUheMz0j5AjPJZum6qhzcdOtknRlg8xx9HbRmKlgojNJKQSoSVPafJLSOBKL/2rCo/pt4CBcmVNmpT0ICqld7KQjnSVo8SsbKQCbjmlK4UGtwU7lQ/v9zE0NTprKDug+Z3D3tzARrmca5VFISvslHbY1BGLwod8FKg4JRtou8ZrN4c9kBLY38AyEEcw5Grvr4RmMVPNdz/xUVGiAt4gTiEOit2mEQIDAQAB";
export const EXTENSION_ID = "mfkdhengdebpnanjmjeildnlkgchlchi";
export const GECKO_ID = "vigil@vigil.dev";
export const chromiumOrigin = (id = EXTENSION_ID) => `chrome-extension://${id}/`;
