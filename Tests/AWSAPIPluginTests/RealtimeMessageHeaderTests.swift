import AWSAPIPlugin
import Testing

/// The one pass over a real-time message's top-level members that routes it by `type` and `id`
/// and finds its payload.
@Suite("Real-time message header scan")
struct RealtimeMessageHeaderTests {
    @Test("type and id are read wherever they are, past nested payloads with strings that hold brackets and quotes")
    func readsTypeAndID() {
        let message = #" { "payload" : {"data":{"t":{"name":"a } ] \" {","n":[1,{"x":null}],"ok":true}}}, "id":"sub-1" ,"type":"data"} "#
        let bytes = Array(message.utf8)
        let header = RealtimeMessageHeader(scanning: bytes)
        #expect(header?.type == "data")
        #expect(header?.id == "sub-1")
        #expect(
            header?.payload.map { String(decoding: bytes[$0], as: UTF8.self) }
                == #"{"data":{"t":{"name":"a } ] \" {","n":[1,{"x":null}],"ok":true}}}"#)
        #expect(RealtimeMessageHeader(scanning: Array(#"{"type":"ka"}"#.utf8)) == RealtimeMessageHeader(typeForTesting: "ka", id: nil))
    }

    @Test(
        "the scan gives up on what is not one well-formed object with a plain string type",
        arguments: [
            "", "[]", "{}", #"{"id":"1"}"#, #"{"type":1}"#, #"{"type":"data""#, #"{"type":"da\"ta"}"#, #"{"type":"data","payload":{"a":[1}}"#,
            #"{"type":"data","payload":{"a":[1}},"x":1}"#, #"{"type":"data","type":"ka"}"#,
            #"{"type":"data","id":"a\"b"}"#,
            #"{"type":"data","payload":"open}"#, #"{"type":"data"} trailing"#, #"{"type":"data",}"#, #"{"type":"data","x":}"#, #"{"type" "data"}"#,
        ])
    func givesUp(_ text: String) {
        #expect(RealtimeMessageHeader(scanning: Array(text.utf8)) == nil)
    }
}
