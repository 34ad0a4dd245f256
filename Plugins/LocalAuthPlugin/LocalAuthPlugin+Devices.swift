import Amplify
import AmplifyAuthCore

/// amplify-swift's `fetchDevices()`, `rememberDevice()` and `forgetDevice(_:)` on the local pool
/// (from `AuthDeviceEngine`'s extension): each sign-in tracks this machine as a device.
extension LocalAuthPlugin: AuthCategoryDeviceBehavior {}
