// swiftlint:disable all
import Amplify
import Foundation

public struct Note: Embeddable {
  var text: String
  var writtenAt: Temporal.DateTime?
}
