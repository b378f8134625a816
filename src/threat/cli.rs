//! stub
pub fn solve_cli(_args: &[String]) -> i32 { 0 }
