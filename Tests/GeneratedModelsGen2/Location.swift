// swiftlint:disable all
import Amplify
import Foundation

public struct Location: Embeddable {
  var lat: Double
  var lng: Double
  var name: String?
}
