import Amplify
