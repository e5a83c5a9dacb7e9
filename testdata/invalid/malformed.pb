
ÿÿÿÿ garbage that is not a protobuf message