export { deriveStateToken, verifyStateToken, stateTokenInfo, StateTokenVerifier, DEFAULT_KEY_VERSION, STATE_PLACEHOLDER_TOKEN } from './state-token.ts';
export { signAdminUrl, signKeyspaceDeletionUrl, verifyAdminUrl, ADMIN_KEY_INFO, type AdminUrlCheck } from './admin-url.ts';
export { readMasterKeyFile, parseMasterKey } from './master-key.ts';
export { hkdf32 } from './hkdf-key.ts';
export { deriveRegistrationCredential, registrationCredentialInfo, RegistrationCredentialVerifier } from './registration-credential.ts';
export {
  deriveSpecializeNonce,
  isSpecializeVerifier,
  mintSpecializeNonce,
  nonceMatchesVerifier,
  specializeNonceInfo,
  specializeVerifier,
} from './specialize-nonce.ts';
