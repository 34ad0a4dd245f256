public enum AmplifyPlaceholder {}
